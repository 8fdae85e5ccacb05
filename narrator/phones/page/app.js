// The phone's page: it shows the one view the laptop sends for its own seat and sends
// back its keys. The seat's token stays in localStorage, never in the address; nothing
// here buzzes, sounds or changes the page's title or history.
"use strict";
(function () {
  const KEY = "narrator.token";
  const $ = (id) => document.getElementById(id);
  let socket = null;
  let texts = {};

  function token() { return localStorage.getItem(KEY); }
  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }
  function show(id) {
    $("join").hidden = id !== "join";
    $("play").hidden = id !== "play";
  }
  function text(el, value) { el.textContent = value || ""; }

  function seats(frame) {
    texts = frame;
    show("join");
    text($("choose"), frame.choose);
    const box = $("seats");
    box.textContent = "";
    for (let seat = 1; seat <= frame.seats; seat++) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = String(seat);
      button.dataset.seat = String(seat);
      if (frame.bound.includes(seat)) button.className = "bound";
      box.appendChild(button);
    }
  }

  function view(v) {
    show("play");
    text($("title"), v.title);
    text($("label"), v.label);
    const lines = $("lines");
    lines.textContent = "";
    for (const line of v.lines) {
      const p = document.createElement("p");
      p.textContent = line;
      lines.appendChild(p);
    }
    const card = v.page === "card";
    $("card").hidden = !card;
    text($("card-text"), card ? v.secret : "");
    text($("hold"), texts.hold || "");
    $("secret").hidden = card || !v.secret;
    text($("secret"), card ? "" : v.secret);
    $("keypad").hidden = v.page === "wait";
    text($("typed"), v.typed);
    text($("note"), v.note);
  }

  function received(event) {
    let frame;
    try { frame = JSON.parse(event.data); } catch (e) { return; }
    if (frame.kind === "seats") seats(frame);
    else if (frame.kind === "view") view(frame);
    else if (frame.kind === "token") localStorage.setItem(KEY, frame.token);
    else if (frame.kind === "asking") text($("join-note"), (texts.asking || "").replace("#", String(frame.seat)));
    else if (frame.kind === "refused") text($("join-note"), texts.refused);
    else if (frame.kind === "error") text($("note"), frame.text);
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.host + "/ws");
    socket.onopen = () => send({ kind: "hello", token: token() });
    socket.onmessage = received;
    socket.onclose = () => setTimeout(connect, 1000);
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("seats").addEventListener("click", (e) => {
      const seat = e.target.dataset && e.target.dataset.seat;
      if (seat) send({ kind: "join", seat: Number(seat), token: token() });
    });
    $("keypad").addEventListener("click", (e) => {
      const key = e.target.dataset && e.target.dataset.key;
      if (key) send({ kind: "key", key: key });
    });
    const hold = $("hold");
    const reveal = (on) => (e) => { e.preventDefault(); $("card-text").hidden = !on; };
    hold.addEventListener("pointerdown", reveal(true));
    for (const name of ["pointerup", "pointerleave", "pointercancel"]) hold.addEventListener(name, reveal(false));
    hold.addEventListener("contextmenu", (e) => e.preventDefault());
    connect();
  });
})();

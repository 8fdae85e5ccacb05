"""Every player's phone as a private keypad and card, served by the laptop.

``seating`` binds a seat to a phone by a random token, ``views`` says what each phone
shows (one seat's view, never another's), ``wire`` turns a view into a frame of one
fixed size, ``hub`` is the state the table and the server share, ``server`` the web
server (aiohttp) and ``page/`` the page itself; ``address`` finds the laptop's
address on its network and draws it as a QR code.
"""

#!/bin/sh
# socket.sh — `warden serve --socket PATH` with a real client: the same
# checks as stdio.sh, and who may connect: the socket is 0600, another
# user is refused, and no command the server or another warden confined
# (or this server started unconfined) gets an answer on it.
. "$top_srcdir/tests/serve/lib.sh"
serve_check socket

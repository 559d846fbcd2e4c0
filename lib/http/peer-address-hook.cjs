// Preloaded into the web server (`node --require …/peer-address-hook.cjs next start`; see
// nextStartArgs in lib/runtime/next-build.ts). Next's server writes the socket peer into
// x-forwarded-for only when the request has none (next/dist/server/base-server.js:
// `req.headers['x-forwarded-for'] ??= socket.remoteAddress`): a client's own X-Forwarded-For
// reached route handlers as is, and the peer was lost. Like any proxy, we append the peer to what
// came in; lib/http/client-address.ts walks the list from the right, past TRUSTED_PROXIES.
"use strict";
const http = require("node:http");
const https = require("node:https");

const PATCHED = Symbol.for("webhook-inbox.peer-address-hook");

function appendPeer(request) {
  // No peer (socket already gone): a value that is no address, so nobody can stand in for it.
  const peer = (request.socket && request.socket.remoteAddress) || "unknown";
  const given = request.headers["x-forwarded-for"];
  request.headers["x-forwarded-for"] = given ? `${given}, ${peer}` : peer;
}

for (const Server of [http.Server, https.Server]) {
  if (Server.prototype[PATCHED]) continue;
  const emit = Server.prototype.emit;
  Server.prototype.emit = function emitWithPeer(event, ...args) {
    if (event === "request" && args[0] && args[0].headers) appendPeer(args[0]);
    return emit.call(this, event, ...args);
  };
  Server.prototype[PATCHED] = true;
}

// Tells lib/http/client-address.ts that the last x-forwarded-for entry is the socket peer.
process.env.INBOX_PEER_ADDRESS_APPENDED = "1";

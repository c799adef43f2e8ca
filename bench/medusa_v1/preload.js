// Preloaded into Medusa (node --require) by setup.sh; none of Medusa's code is changed.
// 1. Each request is marked as having reached Medusa through a TLS-terminating proxy
//    (X-Forwarded-Proto: https), as a production Medusa is deployed: with NODE_ENV=production its
//    session cookie is `secure`, and express-session (trust proxy 1) only issues it on such a
//    request; without this the cookie workload would measure 401s.
// 2. `medusa start` ignores --host and listens on every interface: bind to MEDUSA_HOST
//    (default 127.0.0.1, this machine only) instead.
const http = require("http")
const emit = http.Server.prototype.emit
http.Server.prototype.emit = function (event, req, ...rest) {
  if (event === "request" && !req.headers["x-forwarded-proto"]) {
    req.headers["x-forwarded-proto"] = "https"
  }
  return emit.call(this, event, req, ...rest)
}
const listen = http.Server.prototype.listen
http.Server.prototype.listen = function (port, ...rest) {
  if (typeof port === "number" || (typeof port === "string" && /^\d+$/.test(port))) {
    if (typeof rest[0] !== "string") rest.unshift(process.env.MEDUSA_HOST || "127.0.0.1")
  }
  return listen.call(this, port, ...rest)
}

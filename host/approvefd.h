/*
 * approvefd.h — the caller of `warden run --approve-fd N` as the approver
 * of that run (DESIGN §8).
 *
 * A harness that calls `warden run` once per tool call can answer that
 * call's approvals itself, without a config of its own: it passes one
 * end of a socket (any descriptor open for reading and writing) as N and
 * speaks on it what `warden serve` speaks with its client about approvals:
 * warden writes one JSON-RPC request per line,
 *
 *   {"jsonrpc":"2.0","id":K,"method":"approval.ask",
 *    "params":{"id":null,"request":{...},"timeout_ms":T}}
 *
 * (the request as every answerer sees it, grant_scopes included), and
 * reads one response line, {"jsonrpc":"2.0","id":K,"result":{"decision":
 * "allowed-once"|"allowed-for-session"|"rejected"|"cancelled", "scope":
 * NAME (with allowed-for-session, optional), "message": "..."}}.  An
 * error response, another id, a malformed line, the end of the stream or
 * the answerer's timeout is `unavailable`.
 *
 * Where it answers: in the slot of every `plugin = client` answerer of
 * the config; a config without one gets the caller appended at the end
 * of its chain, as answerer `caller` (the configured answerers still
 * decide first).  The descriptor is close-on-exec: the command never
 * holds it.
 */
#ifndef WARDEN_APPROVEFD_H
#define WARDEN_APPROVEFD_H

#include "run.h"
#include "wconfig.h"

/* Makes fd the approver of the runs of consumer c (see above).  fd must
 * stay open while c runs.  0, or -1 when fd cannot be used. */
int warden_approvefd_attach(struct warden_consumer *c,
                            const struct warden_config *cfg, int fd);

#endif

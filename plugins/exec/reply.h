/*
 * reply.h — the exec answerer's reply parser, apart from the process
 * handling so that it can be fuzzed on its own (fuzz/fuzz_exec_reply.c).
 */
#ifndef WARDEN_EXEC_REPLY_H
#define WARDEN_EXEC_REPLY_H

#include <stddef.h>

/* The longest first line accepted, without its newline. */
#define EXEC_REPLY_LINE_MAX 4096

/* Parse what the program wrote to stdout (out, len bytes; not
 * NUL-terminated; it may be cut short after the first line).  The first
 * line, up to the first '\n' or the end of out, must be exactly one of
 * `allowed-once`, `rejected`, `cancelled` or `next`.  Returns the
 * WARDEN_DECISION_* value with the decision's reason in why: the second
 * line as written, up to its '\n', a NUL or the end, cut to whylen - 1
 * bytes, "" when there is none; or WARDEN_DECISION_ERROR with a one-line
 * printable reason in why.  why is always terminated when whylen > 0. */
int exec_reply_parse(const char *out, size_t len, char *why, size_t whylen);
/* The same, knowing the grant scopes the request offers (ABI 1.4):
 * `allowed-for-session` grants the first, `allowed-for-session NAME` the
 * one named (*choice receives its index); a name not offered, or either
 * form when no scope is offered, is an error. */
int exec_reply_parse_scoped(const char *out, size_t len,
                            const char *const *scopes, size_t n_scopes,
                            size_t *choice, char *why, size_t whylen);

#endif

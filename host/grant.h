/*
 * grant.h — session grants (DESIGN §3, "Grants"): what an answer of
 * allowed-for-session gives, and which later requests it covers.
 *
 * A grant is a scope, fixed when it is given and recorded in the session
 * log (approval/grant, session.h); approval/revoke takes it back.  Three
 * kinds of scope:
 *
 *   exact        this request: the tool, the program by identity (the
 *                file the descriptor opened: its path, device, inode,
 *                size, mtime and ctime; a "#!" script's interpreter the
 *                same), the whole argv, the directory, the PATH it runs
 *                with, the mode and network it asks for;
 *   prefix:N     the tool, the program and interpreter by identity, the
 *                first N argv words (each compared whole), the PATH, the
 *                mode and network: any directory, any further words;
 *   destination  a network request (tool "network", subject HOST:PORT):
 *                that host and port.
 *
 * A scope is a JSON object; its key is the SHA-256 of its compact,
 * key-sorted encoding, in hex.  A request is covered when the key of one
 * of its own scopes (exact, every prefix of its argv, its destination) is
 * the key of a grant the session holds: equal keys are equal scopes, so
 * a replaced program (another inode, size or time), another word or
 * another directory is another key.
 *
 * Never offered and never honoured: a scope whose program or interpreter
 * lies under a writable root of the session (the program says so) or
 * under a directory anyone may write (/tmp, where the temp areas are,
 * /var/tmp, /dev/shm).  Prefixes are not offered for a shell (its -c
 * string is code: a prefix of a shell's argv would cover any command; a
 * whole -c string is one word, so `bash -c 'git status'` never covers
 * `bash -c 'git status; rm -rf x'`), nor one that ends in an option word
 * ("-c", "-e", ...: what follows it is often code).
 */
#ifndef WARDEN_GRANT_H
#define WARDEN_GRANT_H

#include <stddef.h>

#include <jansson.h>

/* The most grants a session holds at once; at the limit none is offered
 * until one is revoked. */
#define WARDEN_GRANTS_MAX 64
/* "grant-" and 16 hex digits. */
#define WARDEN_GRANT_ID_LEN 22
#define WARDEN_GRANT_KEY_LEN 64
/* The longest prefix offered, in argv words. */
#define WARDEN_GRANT_PREFIX_MAX 8
/* Every scope one request has: exact, its prefixes, its destination. */
#define WARDEN_GRANT_SCOPES_MAX (2 + 64)

struct warden_program;

/* One active grant, as the session's knobs carry it. */
struct warden_grant_ref {
	char id[WARDEN_GRANT_ID_LEN + 1];
	char key[WARDEN_GRANT_KEY_LEN + 1];
};

/* The scopes of one request. */
struct warden_grant_scopes {
	size_t n;
	struct {
		char name[32];          /* "exact", "prefix:N", "destination" */
		char *text;             /* one line: what it covers */
		json_t *scope;          /* the scope object */
		char key[WARDEN_GRANT_KEY_LEN + 1];
		int offered;            /* 1: the approver may grant it */
	} s[WARDEN_GRANT_SCOPES_MAX];
	/* Why none is offered, when none is ("" otherwise). */
	char none_why[256];
};

/*
 * The scopes of a request: tool and subject, its argv (argc may be 0)
 * and program (may be NULL: no command), and the mode and network it
 * asks for ("" or NULL when none).  A request with no program has only a
 * destination scope (tool "network"), or none.  0, or -1 (out of
 * memory; free sc either way).
 */
int warden_grant_scopes_build(struct warden_grant_scopes *sc, const char *tool,
                              const char *subject, const char *const *argv,
                              size_t argc, const struct warden_program *p,
                              const char *mode, const char *network);
void warden_grant_scopes_free(struct warden_grant_scopes *sc);

/* The grant in refs (n of them) that covers sc, or NULL; *which (may be
 * NULL) receives the index of the covering scope. */
const struct warden_grant_ref *
warden_grant_covers(const struct warden_grant_scopes *sc,
                    const struct warden_grant_ref *refs, size_t n,
                    size_t *which);

/* The grant in refs that covers a connection to host:port, or NULL (the
 * network proxy asks this before the waterfall). */
const struct warden_grant_ref *
warden_grant_covers_destination(const char *host, unsigned port,
                                const struct warden_grant_ref *refs, size_t n);

/* Checks a scope object as the log holds it and computes its key into
 * key (WARDEN_GRANT_KEY_LEN + 1 bytes).  0, or -1 with why. */
int warden_grant_scope_check(const json_t *scope, char *key, char *why,
                             size_t whylen);

/* 1 when id is "grant-" and 16 lower-case hex digits. */
int warden_grant_id_ok(const char *id);

/* A fresh grant id into id (WARDEN_GRANT_ID_LEN + 1 bytes); 0 or -1. */
int warden_grant_id_new(char *id);

/* One line for people: the scope's text rebuilt from its object (for a
 * grant read back from the log).  malloc'd, or NULL. */
char *warden_grant_scope_text(const json_t *scope);

#endif

/*
 * vocab.h — the exact strings of DESIGN §1 and their closed enums.
 *
 * Every string that appears in config, logs, CLI output or JSON is turned
 * into an enum here and back.  Unknown strings are errors (-1), never a
 * default.
 */
#ifndef WARDEN_VOCAB_H
#define WARDEN_VOCAB_H

#include <warden/plugin.h>

/* Sandbox modes; the confining ones share their values with the ABI. */
enum warden_sandbox_mode {
	WARDEN_SANDBOX_READ_ONLY = WARDEN_MODE_READ_ONLY,
	WARDEN_SANDBOX_WORKSPACE_WRITE = WARDEN_MODE_WORKSPACE_WRITE,
	WARDEN_SANDBOX_DANGER_FULL_ACCESS = 3,
};

enum warden_approval_policy {
	WARDEN_POLICY_ASK = 1,
	WARDEN_POLICY_NEVER = 2,
};

enum warden_outcome {
	WARDEN_OUTCOME_ALLOWED_ONCE = 1,
	WARDEN_OUTCOME_REJECTED = 2,
	WARDEN_OUTCOME_CANCELLED = 3,
	WARDEN_OUTCOME_UNAVAILABLE = 4,
	/* Allowed now, under a session grant: one just given (the request
	 * is then allowed like allowed-once) or one that covered it. */
	WARDEN_OUTCOME_ALLOWED_FOR_SESSION = 5,
};

/* 1 when the outcome lets the asked-about operation proceed (once). */
int warden_outcome_allows(int outcome);

#define WARDEN_SANDBOX_UNAVAILABLE "SANDBOX_UNAVAILABLE"
#define WARDEN_PRESET_CUSTOM "custom"

int warden_mode_parse(const char *s);            /* enum or -1 */
const char *warden_mode_name(int mode);          /* NULL if unknown */
int warden_policy_parse(const char *s);
const char *warden_policy_name(int policy);
int warden_outcome_parse(const char *s);
const char *warden_outcome_name(int outcome);
int warden_enforcement_parse(const char *s);     /* enum warden_enforcement */
const char *warden_enforcement_name(int e);
/* The network knob: enum warden_network of the ABI (plugin.h). */
int warden_network_parse(const char *s);
const char *warden_network_name(int network);

#endif

/*
 * warden/plugin.h — the whole contract between warden and its plugins.
 *
 * A plugin is a shared object that exports exactly one symbol, the
 * descriptor named by WARDEN_PLUGIN_SYMBOL ("warden_plugin"), of type
 * `const struct warden_plugin`.  Everything else in the object should be
 * hidden (-fvisibility=hidden); WARDEN_PLUGIN_EXPORT marks the descriptor.
 *
 * There are two kinds of plugin:
 *
 *   answerer  one link of the approval waterfall.  It decides one request:
 *             allowed-once, rejected, cancelled, or delegates to the next
 *             answerer.  Anything else it returns, and any crash, hang or
 *             error, makes the request `unavailable` (never a permission).
 *
 *   backend   a sandbox backend.  It probes whether it can enforce a mode,
 *             and wraps ("confines") an exact argv so that it runs inside
 *             the file-effect boundary of that mode.
 *
 * Versioning.  The descriptor carries the ABI it was built against
 * (abi_major, abi_minor) and its own size (struct_size = sizeof(struct
 * warden_plugin) as the plugin saw it).  The host checks these before it
 * reads any other field:
 *   - abi_major different from the host's: refused (`malformed`).
 *   - abi_minor newer than the host's: loaded; the fields the host does not
 *     know (the tail beyond the host's struct) are ignored.
 *   - struct_size smaller than the v1.0 size: refused (`malformed`).
 * A minor version only ever appends fields at the end of a struct.
 *
 * Lifetime.  The host dlopen()s the object with RTLD_NOW | RTLD_LOCAL,
 * validates the descriptor, then calls open() once per configured instance
 * (one config section).  The returned state is passed to every op of that
 * instance and finally to close().  A plugin must keep no global mutable
 * state: two instances of the same object may be open at once.
 *
 * Threading.  The host never calls two ops of one instance at the same time.
 * Different instances may be called concurrently.
 *
 * Isolation.  An answerer configured with `isolation = process` is opened
 * and called inside a worker process; it may not assume that it shares
 * memory, signal handlers or file descriptors with the host.  Backends are
 * always called in the host process: their ops must be fast, must not
 * block for long (the probe excepted), and must not run the command.
 *
 * Strings.  Every `const char *` the host hands to a plugin is a
 * NUL-terminated string owned by the host, valid for the duration of the
 * call only.  Copy what you keep.  Strings and tables a plugin places in
 * its descriptor must live as long as the object stays loaded (static
 * storage).
 *
 * Errors.  Where an op takes `char *err, size_t errlen`, the plugin writes
 * one line of human-readable reason into it (truncated, always terminated)
 * when it fails.  Never write more than errlen bytes.
 */
#ifndef WARDEN_PLUGIN_H
#define WARDEN_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI this header describes. */
#define WARDEN_PLUGIN_ABI_MAJOR 1
#define WARDEN_PLUGIN_ABI_MINOR 0

/* The one symbol a plugin exports. */
#define WARDEN_PLUGIN_SYMBOL "warden_plugin"

#if defined(__GNUC__)
#define WARDEN_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define WARDEN_PLUGIN_EXPORT
#endif

/* What a plugin is.  Must match the config section that loads it:
 * [answerer NAME] loads an answerer, [backend NAME] a backend. */
enum warden_plugin_kind {
	WARDEN_PLUGIN_ANSWERER = 1,
	WARDEN_PLUGIN_BACKEND = 2,
};

/* ---------------------------------------------------------------- open */

/* One `key = value` line of the plugin's config section, in file order.
 * Repeatable keys (rules' `allow`, exec's `arg`, ...) appear once per line.
 * The host's own keys (`plugin`, `isolation`, `timeout_ms`) are not passed. */
struct warden_kv {
	const char *key;
	const char *value;
	unsigned line;          /* line number in the config file, for errors */
};

/* What open() receives. */
struct warden_open_args {
	size_t struct_size;     /* sizeof(struct warden_open_args), host's view */
	const char *instance;   /* the section's NAME, e.g. "bwrap" */
	const char *config_file;/* absolute path of the config file, or
	                           "<built-in>" for the compiled-in default */
	const char *config_dir; /* directory relative paths resolve against */
	const struct warden_kv *kv;
	size_t kv_count;
	const char *libexec_dir;/* where warden's helper programs live */
};

/* ------------------------------------------------------------ answerer */

/* What decide() returns.  Any other value, including 0 and negatives, is
 * an error: the request becomes `unavailable`. */
enum warden_decision {
	WARDEN_DECISION_ALLOWED_ONCE = 1,  /* allow this one operation, once */
	WARDEN_DECISION_REJECTED = 2,      /* refuse it */
	WARDEN_DECISION_CANCELLED = 3,     /* the asker withdrew (e.g. Ctrl-C) */
	WARDEN_DECISION_DELEGATE = 4,      /* no opinion: ask the next answerer */
	WARDEN_DECISION_ERROR = -1,        /* the answerer failed: unavailable */
};

/* One approval request.  Optional fields are "" (never NULL) when absent. */
struct warden_request {
	size_t struct_size;         /* sizeof(struct warden_request), host's view */
	const char *session_id;     /* optional */
	const char *request_id;     /* fresh per request; pairs the audit events */
	const char *tool;           /* e.g. "bash" */
	const char *subject;        /* e.g. the command line */
	const char *call_id;        /* optional: the caller's tool-call id */
	const char *reason;         /* optional: why the caller asks */
	const char *requested_mode; /* optional: the sandbox mode an escalation
	                               asks for, e.g. "danger-full-access" */
	const char *cwd;            /* optional: the session's workspace root */
};

/* ------------------------------------------------------------- backend */

/* Confining modes.  danger-full-access is never passed to a backend. */
enum warden_mode {
	WARDEN_MODE_READ_ONLY = 1,
	WARDEN_MODE_WORKSPACE_WRITE = 2,
};

enum warden_enforcement {
	WARDEN_ENFORCEMENT_FULL = 1,    /* every file effect the mode promises */
	WARDEN_ENFORCEMENT_PARTIAL = 2, /* only a subset; detail says which */
};

/* What probe() fills in. */
struct warden_probe {
	int usable;             /* 1: this backend can confine in this mode */
	int enforcement;        /* enum warden_enforcement, when usable */
	int privilege_dropped;  /* 1: the confined command holds no capability
	                           and runs with no_new_privs */
	char detail[256];       /* one line: why unusable, or what is partial */
};

/* How the host tells whether the runner reached exec(), out of band. */
enum warden_evidence {
	/* No out-of-band channel: classification relies on stderr rules. */
	WARDEN_EVIDENCE_NONE = 0,
	/* bubblewrap's --json-status-fd: exec happened iff an object with an
	 * "exit-code" member was written. */
	WARDEN_EVIDENCE_BWRAP_JSON = 1,
	/* A close-on-exec pipe: the runner writes nothing on success, so the
	 * pipe reaches EOF empty exactly when exec() succeeded; on failure the
	 * runner writes one line "fatal: REASON" before exiting. */
	WARDEN_EVIDENCE_EXEC_PIPE = 2,
};

/* The policy of one confine() call.  Carried per call: a backend keeps no
 * policy state between calls. */
struct warden_policy {
	size_t struct_size;          /* sizeof(struct warden_policy), host's view */
	int mode;                    /* enum warden_mode */
	const char *workspace_root;  /* absolute, resolved, normalised */
	const char *session_id;      /* optional, "" when absent */
	/* The descriptor number at which the spawned process will find the
	 * write end of the out-of-band status channel, or -1 when the caller
	 * provides none.  A backend that uses it names it in its argv (e.g.
	 * bwrap --json-status-fd N) and must make sure the confined command
	 * itself does not inherit it. */
	int status_fd;
};

/* Where confine() writes its result.  The host owns all memory: the
 * backend adds strings through the callbacks, which copy them. */
struct warden_confine_out {
	size_t struct_size;
	void *sink;                                   /* host's, opaque */
	/* Append one argument to the replacement argv.  0, or -1 on failure
	 * (out of memory): the backend then returns -1 from confine(). */
	int (*push_arg)(void *sink, const char *arg);
	/* Record one path the confined command may write under. */
	int (*push_writable_root)(void *sink, const char *path);
	/* Filled by the backend: */
	int enforcement;        /* enum warden_enforcement for this call */
	int privilege_dropped;  /* 1 when the command runs with no capability */
	int evidence;           /* enum warden_evidence actually in effect */
	char detail[256];       /* what is partial, if anything */
};

/* A runner-failure rule: the runner refused or broke before the command
 * ran.  A finished run matches a rule when its exit status is nonzero,
 * is in exit_codes (when n_exit_codes > 0), and one stderr line, after
 * every informational line has been removed, contains one of
 * fatal_signatures (case-insensitive substring).  Informational lines are
 * removed by exact, case-insensitive, whole-line comparison. */
struct warden_runner_rule {
	const int *exit_codes;
	size_t n_exit_codes;
	const char *const *fatal_signatures;
	size_t n_fatal_signatures;
	const char *const *informational_lines;
	size_t n_informational_lines;
};

/* ---------------------------------------------------------- descriptor */

struct warden_plugin {
	/* Checked first, in this order.  Fill them with the macros below. */
	uint32_t abi_major;     /* WARDEN_PLUGIN_ABI_MAJOR */
	uint32_t abi_minor;     /* WARDEN_PLUGIN_ABI_MINOR */
	uint32_t struct_size;   /* sizeof(struct warden_plugin) */
	uint32_t kind;          /* enum warden_plugin_kind */

	const char *name;       /* non-empty, [a-z0-9_-], e.g. "bwrap" */
	const char *version;    /* non-empty, the plugin's own version */
	const char *description;/* one line, may be NULL */

	/* Required.  Create one instance from its config section.  Returns the
	 * instance state (any non-NULL pointer), or NULL with a reason in err:
	 * the plugin's status becomes `failed`.  Unknown or bad keys are
	 * errors: name the key and its line. */
	void *(*open)(const struct warden_open_args *args, char *err,
	              size_t errlen);
	/* Required.  Release the instance. */
	void (*close)(void *state);

	/* --- answerer ops (required when kind == WARDEN_PLUGIN_ANSWERER) --- */

	/* Decide one request.  Returns an enum warden_decision.  On
	 * WARDEN_DECISION_ERROR (or any value outside the enum) the reason in
	 * err is recorded, and the request is `unavailable`.  May block (a
	 * prompt, a policy service); the host enforces the timeout. */
	int (*decide)(void *state, const struct warden_request *req,
	              char *err, size_t errlen);

	/* --- backend ops and data (required when kind == WARDEN_PLUGIN_BACKEND) --- */

	/* Can this backend enforce `mode` (enum warden_mode) here?  Fills out.
	 * Returns 0, or -1 when the probe itself failed (reason in
	 * out->detail); either way out->usable says whether to use it.  The
	 * host caches the result for its lifetime. */
	int (*probe)(void *state, int mode, struct warden_probe *out);

	/* Wrap argv (argc entries, exact, never a shell string) for policy.
	 * Writes the replacement argv through out->push_arg and fills the
	 * facts of out.  Returns 0, or -1 with a reason in err.  Must not
	 * run anything. */
	int (*confine)(void *state, const char *const *argv, size_t argc,
	               const struct warden_policy *policy,
	               struct warden_confine_out *out, char *err, size_t errlen);

	/* Stderr text that means "the sandbox worked and refused an effect",
	 * matched (case-insensitive substring) in the stderr tail of a failed
	 * run.  The backend's own dialect only. */
	const char *const *denial_signatures;
	size_t n_denial_signatures;

	/* How the runner reports that it failed before the command ran. */
	const struct warden_runner_rule *runner_rules;
	size_t n_runner_rules;
};

#define WARDEN_PLUGIN_HEADER_INIT(kind_)                                   \
	.abi_major = WARDEN_PLUGIN_ABI_MAJOR,                              \
	.abi_minor = WARDEN_PLUGIN_ABI_MINOR,                              \
	.struct_size = (uint32_t)sizeof(struct warden_plugin),             \
	.kind = (kind_)

/* Convenience for plugins: copy a one-line message into err. */
#define WARDEN_PLUGIN_ERR(err, errlen, ...)                                \
	do {                                                               \
		if ((err) != NULL && (errlen) > 0)                         \
			snprintf((err), (errlen), __VA_ARGS__);            \
	} while (0)

#ifdef __cplusplus
}
#endif

#endif /* WARDEN_PLUGIN_H */

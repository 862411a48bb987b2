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
 *             allowed-once, rejected, cancelled, (from 1.4) allowed for
 *             the session under a grant the request offers, or delegates
 *             to the next answerer.  Anything else it returns, and any crash, hang or
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
 * A minor version only ever appends fields at the end of a struct (or a
 * new op at the end of the descriptor); it never moves, retypes or removes
 * one.  A major version breaks.
 *
 * Direction.  Every field says who writes it:
 *   [host]    the host fills it, the plugin only reads it: the open args
 *             and their kv lines, the request, the policy;
 *   [plugin]  the plugin fills it, the host only reads it: the descriptor
 *             and the tables it points to, what probe(), probe2() and
 *             confine() write.
 * warden_confine_out and warden_probe2 are shared: the host sets
 * struct_size (and the sink and callbacks), the plugin the rest.
 *
 * Growing.  Every struct the two sides exchange can grow in a minor:
 *   - A struct passed by pointer starts with struct_size, the size the
 *     side that allocated it knows.  A reader reads a field only when
 *     struct_size covers it: the WARDEN_*_HAS(ptr, field) macros.
 *   - A struct the plugin writes into (warden_confine_out, warden_probe2)
 *     is zero-filled by the host, which sets struct_size to its own size.
 *     The plugin writes only fields within struct_size (check with the
 *     _HAS macro before writing a field appended after 1.0): a field the
 *     host does not know is never written, and a field the plugin does
 *     not know stays 0, which always means "not said".
 *   - Array elements carry their size in the struct that holds the array:
 *     warden_open_args.kv_size for warden_kv (index the lines with
 *     WARDEN_OPEN_ARGS_KV), warden_plugin.runner_rule_size for
 *     warden_runner_rule.  The host lays a kv array out in the layout of
 *     the older of its own minor and the plugin's abi_minor.
 *   - struct warden_probe has no size and cannot grow: its successor is
 *     the op probe2() with struct warden_probe2, which has one.
 *
 * ABI history.  What each minor appended; a plugin relies on an entry only
 * when the _HAS check (or, for the descriptor, the host's minor) says the
 * other side has it.
 *   1.0  the base: everything not listed below.
 *   1.1  warden_open_args: timeout_ms, kv_size.
 *        warden_policy: read_only_paths, n_read_only_paths, root_fd,
 *          network, allow_unix_sockets, n_allow_unix_sockets
 *          (enum warden_network), spawn_env.
 *        warden_confine_out: push_fd, read_only_held, network_enforcement,
 *          network_detail, denial_message, push_env, env_set,
 *          spawn_flags (enum warden_spawn_flag), run.
 *        warden_plugin: runner_rule_size, probe2 (struct warden_probe2,
 *          which adds network_enforcement and network_detail), facts
 *          (the cheap judgement `warden run` confines on; the run is
 *          the proof), finish (with spawn_env: a host that spawns the
 *          argv itself lets the backend do a launcher's part).
 *        warden_request: argv, argc, program, interpreter,
 *          program_writable, env_removed, n_env_removed, path_dropped,
 *          n_path_dropped, path (the command a request is about, as it
 *          will run); cwd is then the directory it will run in;
 *          requested_network (an escalation with the network enabled).
 *        decide(): err carries a one-line reason for every decision, not
 *          only for an error; the host records it.
 *        Macros: WARDEN_*_HAS, WARDEN_OPEN_ARGS_KV, WARDEN_KV_HAS,
 *          WARDEN_RUNNER_RULE_HAS, WARDEN_PLUGIN_ANSWERER_INIT,
 *          WARDEN_PLUGIN_BACKEND_INIT; WARDEN_PLUGIN_EXPORT gives the
 *          descriptor C linkage when compiled as C++.
 *   1.2  warden_policy: tmp_dir, tmp_fd, tmp_hide (the command's view of
 *          /tmp), cwd (where the command starts).
 *        warden_confine_out: tmp_held, push_held (the paths a denial
 *          may name without the backend's signature).
 *   1.3  warden_policy: more_roots, more_root_fds, more_root_kinds,
 *          n_more_roots (writable roots beside workspace_root, a git
 *          worktree's common directory among them), deny_read,
 *          n_deny_read (paths the command must not read), void_file,
 *          void_dir (what may be bound over them).
 *        warden_confine_out: deny_read_held.
 *        warden_probe2: deny_read_held.
 *   1.4  enum warden_decision: WARDEN_DECISION_ALLOWED_FOR_SESSION.
 *        warden_request: env_config, n_env_config (where the command's
 *          programs read their configuration from: HOME and the other
 *          location variables it gets), grant_scopes, grant_texts,
 *          n_grant_scopes, grant_choice (the grants offered, and the one
 *          taken).
 *        enum warden_network: WARDEN_NETWORK_ALLOWLIST.
 *        warden_policy: proxy_port, proxy_fd (the allowlist proxy).
 *        warden_confine_out: push_status_copy (a copy of the status
 *          channel for a runner's part inside the sandbox: a signal
 *          told apart from an exit).
 *
 * Meeting an older host.  A plugin built against this header and loaded
 * by a 1.0 host is loaded (that host reads the 1.0 prefix of the
 * descriptor) and works, with these differences, which a plugin must
 * allow for:
 *   - the open args, policy, request and confine_out it gets end at
 *     their 1.0 size: read timeout_ms, kv_size, the 1.1 policy and
 *     request fields, and write the 1.1 confine_out fields, only after
 *     their _HAS check;
 *   - probe2(), facts() and finish() are never called, nor spawn_env
 *     set: a backend that may meet a 1.0 host fills probe too (a 1.0
 *     host refuses a backend whose probe is NULL: `malformed`,
 *     "required op probe is NULL");
 *   - runner_rule_size is not read: the rules must be in the 1.0 layout,
 *     which is 1.1's;
 *   - the reason decide() gives with a decision is not recorded.
 * A plugin that cannot do its job without a 1.1 field (a backend that must
 * bind root_fd, say) says so: confine() fails with a reason naming the
 * missing field, and the backend is skipped with it, never silently used.
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
#define WARDEN_PLUGIN_ABI_MINOR 4

/* The one symbol a plugin exports. */
#define WARDEN_PLUGIN_SYMBOL "warden_plugin"

/* Marks the descriptor's definition: the one symbol the object exports
 * (visible under -fvisibility=hidden) and, in C++, with C linkage and
 * external linkage (a namespace-scope const object would otherwise be
 * internal to its file, and its name mangled):
 *
 *   WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = ...;
 */
#if defined(__cplusplus)
#define WARDEN_PLUGIN_EXTERN_C extern "C"
#else
#define WARDEN_PLUGIN_EXTERN_C
#endif
#if defined(__GNUC__)
#define WARDEN_PLUGIN_EXPORT                                               \
	WARDEN_PLUGIN_EXTERN_C __attribute__((visibility("default")))
#else
#define WARDEN_PLUGIN_EXPORT WARDEN_PLUGIN_EXTERN_C
#endif

/* What a plugin is.  Must match the config section that loads it:
 * [answerer NAME] loads an answerer, [backend NAME] a backend. */
enum warden_plugin_kind {
	WARDEN_PLUGIN_ANSWERER = 1,
	WARDEN_PLUGIN_BACKEND = 2,
};

/* ---------------------------------------------------------------- open */

/* [host] One `key = value` line of the plugin's config section, in file
 * order.  Repeatable keys (rules' `allow`, exec's `arg`, ...) appear once
 * per line.  The host's own keys (`plugin`, `isolation`, `timeout_ms`,
 * `required`) are not passed.  An element of the array args->kv: it grows
 * through args->kv_size (index with WARDEN_OPEN_ARGS_KV, test a field
 * appended after 1.0 with WARDEN_KV_HAS). */
struct warden_kv {
	const char *key;
	const char *value;
	unsigned line;          /* line number in the config file, for errors */
};

/* [host] What open() receives. */
struct warden_open_args {
	size_t struct_size;     /* sizeof(struct warden_open_args), host's view */
	const char *instance;   /* the section's NAME, e.g. "bwrap" */
	const char *config_file;/* absolute path of the config file, or
	                           "<built-in>" for the compiled-in default */
	const char *config_dir; /* directory relative paths resolve against */
	const struct warden_kv *kv;
	size_t kv_count;
	const char *libexec_dir;/* where warden's helper programs live: the
	                           bwrap launcher warden-bwrap-exec and the
	                           Landlock runner warden-landlock-run (see
	                           warden-plugin(7), HELPERS) */

	/* Appended in v1.1: read them only when struct_size covers them
	 * (WARDEN_OPEN_ARGS_HAS(args, field)); a v1.0 host never sets them. */

	/* An answerer's `timeout_ms` from its section, 0 when none.  The key
	 * is the host's, and it is passed here so that an answerer that
	 * blocks (a prompt, a program it runs) can apply its own outcome at
	 * that deadline. */
	long timeout_ms;
	/* The size of one element of kv as the host laid it out: at least
	 * the 1.0 size.  0 or absent: the 1.0 size. */
	size_t kv_size;
};

/* Whether the host's struct warden_open_args includes `field`. */
#define WARDEN_OPEN_ARGS_HAS(args, field)                                  \
	((args)->struct_size >= offsetof(struct warden_open_args, field) + \
	                        sizeof((args)->field))

/* struct warden_kv as ABI 1.0 laid it out, padding included: its size
 * is the element size of a 1.0 kv array.  Never use it otherwise. */
struct warden_kv_v1_0 {
	const char *key;
	const char *value;
	unsigned line;
};
#define WARDEN_KV_SIZE_1_0 sizeof(struct warden_kv_v1_0)

/* The element size of args->kv. */
#define WARDEN_OPEN_ARGS_KV_SIZE(args)                                     \
	(WARDEN_OPEN_ARGS_HAS(args, kv_size) && (args)->kv_size != 0       \
	 ? (args)->kv_size : (size_t)WARDEN_KV_SIZE_1_0)

/* The i-th kv line of args, whatever size the host's elements have. */
#define WARDEN_OPEN_ARGS_KV(args, i)                                       \
	((const struct warden_kv *)(const void *)                          \
	 ((const char *)(args)->kv + (size_t)(i) * WARDEN_OPEN_ARGS_KV_SIZE(args)))

/* Whether the host's kv elements include `field`. */
#define WARDEN_KV_HAS(args, field)                                         \
	(WARDEN_OPEN_ARGS_KV_SIZE(args) >=                                 \
	 offsetof(struct warden_kv, field) +                               \
	 sizeof(((const struct warden_kv *)0)->field))

/* ------------------------------------------------------------ answerer */

/* What decide() returns.  Any other value, including 0 and negatives, is
 * an error: the request becomes `unavailable`. */
enum warden_decision {
	WARDEN_DECISION_ALLOWED_ONCE = 1,  /* allow this one operation, once */
	WARDEN_DECISION_REJECTED = 2,      /* refuse it */
	WARDEN_DECISION_CANCELLED = 3,     /* the asker withdrew (e.g. Ctrl-C) */
	WARDEN_DECISION_DELEGATE = 4,      /* no opinion: ask the next answerer */
	WARDEN_DECISION_ERROR = -1,        /* the answerer failed: unavailable */

	/* ---- v1.4 (grants) ---- */
	/* Allow this operation now and grant the session the scope
	 * req->grant_scopes[*req->grant_choice] (set it first; untouched it
	 * stays 0, the first scope offered): a later request of the same
	 * session that the grant covers is allowed without asking.  Only
	 * when the request offers a scope (n_grant_scopes > 0); otherwise,
	 * and from a plugin whose descriptor says abi_minor < 4, the value is
	 * outside the closed set and the request is `unavailable` (as it is
	 * on a host older than 1.4: return it only after
	 * WARDEN_REQUEST_HAS(req, grant_choice) and n_grant_scopes > 0). */
	WARDEN_DECISION_ALLOWED_FOR_SESSION = 5,
};

/* [host] One approval request.  Optional fields are "" (never NULL) when
 * absent. */
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
	const char *cwd;            /* optional: the directory the operation
	                               runs in.  For a request that describes a
	                               command (argc > 0, v1.1) the directory it
	                               will run in, absolute and resolved;
	                               otherwise the session's workspace root */

	/* Appended in v1.1: read them only when struct_size covers them
	 * (WARDEN_REQUEST_HAS(req, field)); a v1.0 host never sets them.
	 *
	 * They describe the command the request is about exactly as it will
	 * run if the answer is allowed-once: the host resolved and opened the
	 * program before asking and executes that file by descriptor, in cwd,
	 * with the environment these fields describe.  A request that
	 * describes no command (`warden approve` without one) has argc 0,
	 * argv and the lists NULL with counts 0, the strings "", and
	 * program_writable 0. */

	/* The exact argv, argc entries (argv[argc] is NULL).  A shell command
	 * is SHELL, "-c", COMMAND: argv[0] is the name as given, program the
	 * file it resolved to. */
	const char *const *argv;
	size_t argc;
	/* The absolute, resolved path of the file that will be executed. */
	const char *program;
	/* For a "#!" script: the interpreter its first line names (absolute,
	 * resolved where it exists), which the kernel runs with the script;
	 * "" for any other program. */
	const char *interpreter;
	/* 1 when program or interpreter lies under a writable root of the
	 * session: a sandboxed command could have written it.  The host runs
	 * such a program from a sealed copy taken before asking. */
	int program_writable;
	/* The variables removed from the caller's environment because they
	 * make the shell, the dynamic loader or an interpreter run code or
	 * load files when the program starts (BASH_ENV, ENV, LD_PRELOAD,
	 * PYTHONPATH, ...), or name a place under a writable root where
	 * programs read configuration (XDG_CONFIG_HOME, ...; HOME when the
	 * caller's is not the user's own, which the command gets instead):
	 * the names of those that were set, in environment order. */
	const char *const *env_removed;
	size_t n_env_removed;
	/* The PATH entries removed, in PATH order: empty and relative ones,
	 * and every one under a writable root of the session. */
	const char *const *path_dropped;
	size_t n_path_dropped;
	/* The PATH the command gets; "" when it gets none. */
	const char *path;
	/* The network an escalation asks for (enum warden_network's word):
	 * "enabled" when the command is to run once with the host's network
	 * (`warden run --escalate-network`), "" when the request asks for no
	 * network.  A request that asks for both a mode and the network sets
	 * requested_mode too; one that asks for the network alone leaves
	 * requested_mode "" and runs under the session's mode. */
	const char *requested_network;

	/* Appended in v1.4: read them only after WARDEN_REQUEST_HAS. */

	/* The variables that say where the command's programs read their
	 * configuration or code from, as "NAME=value", HOME first: HOME is
	 * always the user's own (the password database's; the caller's,
	 * when another, is in env_removed), and each other one (the XDG
	 * base directories, CARGO_HOME, KUBECONFIG, ...) is the caller's,
	 * kept because everything it names lies outside every writable root
	 * of the session (one under a writable root is removed and named in
	 * env_removed).  Nothing else in the environment differs from the
	 * caller's in a way that changes what runs. */
	const char *const *env_config;
	size_t n_env_config;

	/* The grants the approver may give with
	 * WARDEN_DECISION_ALLOWED_FOR_SESSION, narrowest first: each a name
	 * ("exact", "prefix:N", "destination") and one line that says what
	 * it would cover.  n_grant_scopes 0 (the lists NULL): none is offered
	 * (a program under a writable root, no command, the session's grant
	 * list full). */
	const char *const *grant_scopes;
	const char *const *grant_texts;
	size_t n_grant_scopes;
	/* [plugin] Where decide() writes the index of the scope it grants
	 * (0 when it writes nothing); NULL when n_grant_scopes is 0.  An
	 * index >= n_grant_scopes makes the request `unavailable`. */
	size_t *grant_choice;
};

/* Whether the host's struct warden_request includes `field`. */
#define WARDEN_REQUEST_HAS(req, field)                                     \
	((req)->struct_size >= offsetof(struct warden_request, field) +    \
	                       sizeof((req)->field))

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

/* The network knob (v1.1).  Never passed for danger-full-access. */
enum warden_network {
	WARDEN_NETWORK_RESTRICTED = 1, /* no socket outside the command's own
	                                  process tree (see warden_policy) */
	WARDEN_NETWORK_ENABLED = 2,    /* the host's network */
	/* v1.4: only warden's proxy (policy->proxy_port / proxy_socket): a
	 * backend of an older minor refuses the value as unknown. */
	WARDEN_NETWORK_ALLOWLIST = 3,
};

/* [plugin] What probe() fills in.  Frozen at its 1.0 layout (it has no
 * size): what a probe says beyond it goes through probe2() and struct
 * warden_probe2. */
struct warden_probe {
	int usable;             /* 1: this backend can confine in this mode */
	int enforcement;        /* enum warden_enforcement, when usable */
	int privilege_dropped;  /* 1: the confined command holds no capability
	                           and runs with no_new_privs */
	char detail[256];       /* one line: why unusable, or what is partial */
};

/* [shared] What probe2() (v1.1) fills in: the host zero-fills it and sets
 * struct_size; the plugin writes the rest, only within struct_size
 * (WARDEN_PROBE2_HAS before writing a field appended after 1.1). */
struct warden_probe2 {
	size_t struct_size;     /* [host] sizeof(struct warden_probe2), host's
	                           view */
	int usable;             /* 1: this backend can confine in this mode */
	int enforcement;        /* enum warden_enforcement, when usable */
	int privilege_dropped;  /* 1: the confined command holds no capability
	                           and runs with no_new_privs */
	char detail[256];       /* one line: why unusable, or what is partial */
	/* enum warden_enforcement of network = restricted in this mode: full
	 * when a confined command reaches no socket the knob forbids; 0 (not
	 * said) counts as partial. */
	int network_enforcement;
	char network_detail[256]; /* what is partial about the network */
	/* (1.3) 1: confine() in this mode hides every policy->deny_read path
	 * (sets warden_confine_out.deny_read_held); 0 when it cannot. */
	int deny_read_held;
};

/* Whether the host's struct warden_probe2 includes `field`. */
#define WARDEN_PROBE2_HAS(out, field)                                      \
	((out)->struct_size >= offsetof(struct warden_probe2, field) +     \
	                       sizeof((out)->field))

/* How the host tells whether the runner reached exec(), out of band. */
enum warden_evidence {
	/* No out-of-band channel: classification relies on stderr rules. */
	WARDEN_EVIDENCE_NONE = 0,
	/* bubblewrap's --json-status-fd: exec happened iff an object with an
	 * "exit-code" member was written. */
	WARDEN_EVIDENCE_BWRAP_JSON = 1,
	/* A close-on-exec pipe.  The runner writes WARDEN_EXEC_PIPE_STARTED
	 * as soon as it holds the descriptor, before anything that can fail
	 * (its own arguments included); on failure it then writes one line
	 * "fatal: REASON" before exiting; on success exec() closes the pipe.
	 * Exec happened iff the pipe carried exactly WARDEN_EXEC_PIPE_STARTED
	 * up to EOF.  Empty means the runner never started (it could not be
	 * executed, or died before it could report): not happened.  (A runner
	 * killed by a signal between the two looks like a command killed.) */
	WARDEN_EVIDENCE_EXEC_PIPE = 2,
};

/* The EXEC_PIPE protocol's two messages. */
#define WARDEN_EXEC_PIPE_STARTED "started\n"
#define WARDEN_EXEC_PIPE_FATAL "fatal: "

/* [host] The policy of one confine() call.  Carried per call: a backend
 * keeps no policy state between calls. */
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

	/* Appended in v1.1: read them only when struct_size covers them
	 * (WARDEN_POLICY_HAS(policy, field)); a v1.0 host never sets them. */

	/* Absolute, resolved paths that must stay read-only inside the
	 * sandbox whatever the mode: what decides how a later command is
	 * confined or approved (the config in use, the session logs, plugins,
	 * runners, the programs answerers run).  A backend that cannot keep
	 * one that lies under a writable root read-only, against every route
	 * (a direct write, renaming or deleting an ancestor, deleting and
	 * recreating it), must refuse: confine() fails naming the path.  It
	 * says it held them by setting out->read_only_held. */
	const char *const *read_only_paths;
	size_t n_read_only_paths;
	/* An O_PATH descriptor of workspace_root in the host, opened without
	 * following any symlink after the host checked that the root is still
	 * the path the session recorded; -1 when none.  A backend that binds
	 * the root binds this descriptor (out->push_fd) rather than the path,
	 * so nothing can swap the path between the check and the mount. */
	int root_fd;
	/* enum warden_network: restricted (no socket outside the command's own
	 * process tree but allow_unix_sockets) or enabled.  The backend says
	 * what it enforced in out->network_enforcement. */
	int network;
	/* Host unix sockets (absolute paths) a restricted command may connect
	 * to. */
	const char *const *allow_unix_sockets;
	size_t n_allow_unix_sockets;
	/* Set only by a host that spawns the argv itself, as its own child,
	 * reaps it, and then calls the descriptor's finish() (`warden run`,
	 * `warden serve`), and only for a backend that has finish(); NULL
	 * otherwise (`warden confine` prints an argv another process
	 * spawns).  The environment the process would get ("NAME=VALUE",
	 * NULL-terminated).  With it a backend may do in the host what it
	 * would otherwise leave to a launcher process of its own: give the
	 * process another environment (out->push_env), have the host start
	 * it with out->spawn_flags, and keep what the run holds (a lock, the
	 * paths to remove afterwards) in out->run until finish(). */
	const char *const *spawn_env;

	/* Appended in v1.2: read them only after WARDEN_POLICY_HAS; a 1.1
	 * host never sets them. */

	/* The command's temp area: a directory of the host (absolute,
	 * resolved, the caller's own), kept across the runs of a session,
	 * that a workspace-write command may write (the host points TMPDIR
	 * to it; read-only gives it no write).  The rest of the host's /tmp
	 * is shown as it is, read-only.  NULL: the host has none, and the
	 * backend keeps whatever temp area it had in 1.1 (bwrap: a private,
	 * empty /tmp).  tmp_fd: an O_PATH descriptor of it, or -1.  A backend
	 * that made it writable and /tmp the host's says so in
	 * out->tmp_held. */
	const char *tmp_dir;
	int tmp_fd;
	/* The directory that holds every temp area of this user (tmp_dir's
	 * parent), or NULL: its other entries are other sessions' and stay
	 * unread; a backend that cannot hide them names it in detail. */
	const char *tmp_hide;
	/* The directory the command will start in (absolute, resolved), or
	 * NULL when the caller does not say (`warden confine`).  The command
	 * starts exactly there: a backend whose sandbox cannot show it fails
	 * confine() naming it, and never lets the command start elsewhere. */
	const char *cwd;

	/* Appended in v1.3: read them only after WARDEN_POLICY_HAS; a 1.2
	 * host never sets them. */

	/* Writable roots beside workspace_root (absolute, resolved, none
	 * under another root), writable in workspace-write like the
	 * workspace root and read-only in read-only.  Every rule the backend
	 * keeps inside the workspace root (its protected paths, the
	 * read_only_paths under it, pinning what leads to them) applies
	 * inside each of them.  more_root_fds[i]: an O_PATH descriptor of
	 * more_roots[i], opened like root_fd, or -1.  more_root_kinds[i]:
	 * enum warden_root_kind. */
	const char *const *more_roots;
	const int *more_root_fds;
	const int *more_root_kinds;
	size_t n_more_roots;
	/* Paths the command must not read, in every mode the backend is
	 * given (absolute, resolved, each existing when the host built the
	 * policy: the host expanded `~` and globs).  A backend that refuses
	 * every read of each (a read is refused, not answered empty) sets
	 * out->deny_read_held; one that cannot leaves it 0 and names what it
	 * left readable in detail: the host then counts the confinement as
	 * partial. */
	const char *const *deny_read;
	size_t n_deny_read;
	/* An empty regular file and an empty directory of the host, both
	 * mode 000, the caller's own, in a directory only the caller may
	 * write, that a backend may bind read-only over a deny_read path of
	 * the same kind (a read of it is then refused, even to root once
	 * capabilities are dropped); NULL when the host has none. */
	const char *void_file;
	const char *void_dir;

	/* Appended in v1.4 (the allowlist network): read them only after
	 * WARDEN_POLICY_HAS; an older host never sets them, and never passes
	 * WARDEN_NETWORK_ALLOWLIST. */
	/* network == WARDEN_NETWORK_ALLOWLIST: the proxy's TCP port on the
	 * host's 127.0.0.1, and the port the command is told (HTTP_PROXY and
	 * the rest are in spawn_env); 0 otherwise. */
	int proxy_port;
	/* network == WARDEN_NETWORK_ALLOWLIST: one end of a unix SOCK_SEQPACKET
	 * pair; a forwarder in a network namespace of the command's own
	 * listens on its 127.0.0.1:proxy_port and sends each accepted socket
	 * over it (SCM_RIGHTS, one per message) to the proxy.  The host's;
	 * hand out a dup().  -1 otherwise. */
	int proxy_fd;
};

/* What a writable root is (v1.3). */
enum warden_root_kind {
	WARDEN_ROOT_PLAIN = 0,
	/* The common directory of a git repository (its `.git`) that a
	 * linked worktree under the workspace root keeps its objects, refs
	 * and logs in.  The backend's protected paths that begin with
	 * ".git/" apply inside it without that prefix (hooks/, config, ...);
	 * the others do not apply. */
	WARDEN_ROOT_GIT_COMMON_DIR = 1,
};

/* Whether the host's struct warden_policy includes `field`. */
#define WARDEN_POLICY_HAS(policy, field)                                   \
	((policy)->struct_size >= offsetof(struct warden_policy, field) +  \
	                          sizeof((policy)->field))

/* [shared] Where confine() writes its result.  The host zero-fills it and
 * sets struct_size, sink and the callbacks; the backend writes the fields
 * marked "filled by the backend", only within struct_size.  The host owns
 * all memory: the backend adds strings through the callbacks, which copy
 * them. */
struct warden_confine_out {
	size_t struct_size;     /* [host] sizeof(struct warden_confine_out),
	                           host's view */
	void *sink;                                   /* [host] opaque */
	/* Append one argument to the replacement argv.  0, or -1 on failure
	 * (out of memory): the backend then returns -1 from confine(). */
	int (*push_arg)(void *sink, const char *arg);
	/* Record one path the confined command may write under. */
	int (*push_writable_root)(void *sink, const char *path);
	/* Filled by the backend (the callbacks above are the host's): */
	int enforcement;        /* enum warden_enforcement for this call */
	int privilege_dropped;  /* 1 when the command runs with no capability */
	int evidence;           /* enum warden_evidence actually in effect */
	char detail[256];       /* what is partial, if anything */

	/* Appended in v1.1: write (or call) them only when struct_size covers
	 * them (WARDEN_CONFINE_OUT_HAS(out, field)); a v1.0 host's struct
	 * ends before them.  The host sets them to 0 / NULL before the call:
	 * a backend that leaves them alone has held nothing it was not asked
	 * about in v1.0.  push_fd is the host's; the rest the backend's. */

	/* Hand the host a descriptor the spawned process must hold: the host
	 * takes it over (it closes fd once the process is spawned, or when
	 * the call fails) and returns the number at which the process will
	 * find it (>= 3), for the backend to name in its argv.  -1 when the
	 * caller cannot pass descriptors (warden confine prints an argv that
	 * another process spawns): the backend then does without, or fails.
	 * NULL when the host cannot pass any. */
	int (*push_fd)(void *sink, int fd);
	/* 1: every policy->read_only_paths entry under a writable root stays
	 * read-only by every route.  The host refuses a confinement that
	 * leaves this 0 while such a path exists. */
	int read_only_held;
	/* enum warden_enforcement of policy->network: full when the command
	 * reaches no socket the knob forbids; 0 (not set) counts as partial. */
	int network_enforcement;
	char network_detail[256]; /* what is partial about the network */
	/* One line the host shows after a run this confinement denied, in the
	 * backend's words (what it refuses, e.g. "the host is read-only
	 * outside ROOT; .git/hooks and .git/config stay read-only inside");
	 * "" for none: the host then says what it can tell from the run. */
	char denial_message[256];

	/* With policy->spawn_env only (push_env is NULL otherwise).
	 * push_env is the host's: append one "NAME=VALUE" entry to the
	 * environment the process gets.  env_set = 1: the process gets the
	 * entries pushed, and only them, instead of policy->spawn_env.
	 * spawn_flags: WARDEN_SPAWN_* the host applies in the child before
	 * exec (a flag the host does not know fails the confinement).  run:
	 * the backend's state of this run, handed back to finish(). */
	int (*push_env)(void *sink, const char *entry);
	int env_set;
	int spawn_flags;
	void *run;

	/* Appended in v1.2. */
	/* 1: policy->tmp_dir is writable inside (workspace-write) and the
	 * host's /tmp is shown as it is; 0: the backend kept a temp area of
	 * its own, and the host does not point TMPDIR at tmp_dir. */
	int tmp_held;
	/* The host's: record one path (absolute; a component may be a glob,
	 * fnmatch(3)) that stays read-only inside a writable root, such as a
	 * protected path: a write the command's stderr says was refused there
	 * (EBUSY, EROFS, EACCES, EPERM) is a denial with that path, whatever
	 * the backend's denial signatures.  0, or -1 (out of memory). */
	int (*push_held)(void *sink, const char *path);

	/* Appended in v1.3. */
	/* 1: every policy->deny_read path refuses reads inside (EACCES or
	 * EPERM, never an empty answer). */
	int deny_read_held;

	/* Appended in v1.4. */
	/* The host's: the number (>= 3) at which the spawned process will
	 * also find the status channel's write end, not close-on-exec, for
	 * a part of the runner inside the sandbox that reports there what
	 * the outer part cannot tell (bwrap's process 1 turns a signal into
	 * the exit status 128+N: the launcher inside writes
	 * {"warden-signal": N}).  The runner must keep it from the command.
	 * -1 when the caller cannot pass descriptors; NULL from an older
	 * host. */
	int (*push_status_copy)(void *sink);
};

/* What a host that spawns the argv itself does in the child before exec,
 * when the backend asks (out->spawn_flags). */
enum warden_spawn_flag {
	/* SIGKILL to the process when the host dies (PR_SET_PDEATHSIG);
	 * nothing is executed when the host is already gone. */
	WARDEN_SPAWN_DIE_WITH_HOST = 1,
	/* A new, empty session keyring (KEYCTL_JOIN_SESSION_KEYRING): the
	 * host's is not namespaced.  A kernel without keyrings (ENOSYS) or a
	 * seccomp filter that refuses them (EPERM) is no failure: the
	 * process inherits the same. */
	WARDEN_SPAWN_OWN_SESSION_KEYRING = 2,
};
#define WARDEN_SPAWN_FLAGS_KNOWN                                           \
	(WARDEN_SPAWN_DIE_WITH_HOST | WARDEN_SPAWN_OWN_SESSION_KEYRING)

/* Whether the host's struct warden_confine_out includes `field`. */
#define WARDEN_CONFINE_OUT_HAS(out, field)                                 \
	((out)->struct_size >= offsetof(struct warden_confine_out, field) + \
	                       sizeof((out)->field))

/* [plugin] A runner-failure rule: the runner refused or broke before the
 * command ran.  An element of the descriptor's runner_rules table, whose
 * element size is the descriptor's runner_rule_size (v1.1).  A finished run matches a rule when its exit status is nonzero,
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

/* The size of a warden_runner_rule in ABI 1.0 (no padding: every field is
 * a pointer or a size_t). */
#define WARDEN_RUNNER_RULE_SIZE_1_0                                        \
	(offsetof(struct warden_runner_rule, n_informational_lines) +      \
	 sizeof(size_t))

/* ---------------------------------------------------------- descriptor */

/* [plugin] The one exported symbol.  Everything in it, and every table it
 * points to, is the plugin's, static, and only read by the host. */
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
	 * err is recorded, and the request is `unavailable`.  From v1.1 err
	 * may also carry the reason of a decision (allowed-once, rejected,
	 * cancelled, delegate): one line, e.g. "rule deny = bash:rm *
	 * (warden.ini:12)" or "the user answered no"; the host records it
	 * with the decision, escaped and cut to a bounded length (a v1.0
	 * host drops it).  Leave err alone for no reason.  May block (a
	 * prompt, a policy service); the host enforces the timeout.  Must
	 * not let a C++ exception out, and must not crash: in process
	 * isolation that costs the request, in the host process it ends the
	 * host. */
	int (*decide)(void *state, const struct warden_request *req,
	              char *err, size_t errlen);

	/* --- backend ops and data (required when kind == WARDEN_PLUGIN_BACKEND) --- */

	/* Can this backend enforce `mode` (enum warden_mode) here?  Fills out.
	 * Returns 0, or -1 when the probe itself failed (reason in
	 * out->detail); either way out->usable says whether to use it.  The
	 * host caches the result for its lifetime.  A v1.1 host calls
	 * probe2 instead when the descriptor has one; probe may then be NULL
	 * (but a v1.0 host refuses a backend without probe). */
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

	/* Appended in v1.1: a v1.0 host never reads them (see "Meeting an
	 * older host" above). */

	/* sizeof(struct warden_runner_rule) as the plugin laid out
	 * runner_rules; 0: the 1.0 size. */
	size_t runner_rule_size;
	/* The successor of probe: the same question, and the answer in a
	 * struct that can grow (struct warden_probe2: also the network
	 * enforcement).  Optional; when set, a v1.1 host calls it and never
	 * probe.  Returns 0, or -1 when the probe itself failed. */
	int (*probe2)(void *state, int mode, struct warden_probe2 *out);
	/* Optional.  What a confine() for `mode` would give, from cheap
	 * facts that are current in this process (a syscall, a stat of the
	 * runner): runs nothing, never blocks, never answers from a result
	 * stored by an earlier process.  Fills out like probe2.  The host
	 * uses it where the run itself is the proof: `warden run` confines
	 * after facts and spawns; when the runner then fails before exec
	 * (the out-of-band evidence says the command never started) nothing
	 * ran, and the host probes the backend for real and goes on exactly
	 * as after a failed probe.  So facts may be optimistic about what
	 * only a run can show (will the kernel let the runner set up?),
	 * never about enforcement: `full` only when a run that reaches exec
	 * is fully enforced.  A confine() after facts must work as after a
	 * probe.  Needs a runner with out-of-band evidence; without facts,
	 * the host always probes.  `warden plugins` and `warden confine`
	 * always probe. */
	int (*facts)(void *state, int mode, struct warden_probe2 *out);
	/* Optional.  The host calls it once after each confine() that got
	 * policy->spawn_env and returned 0, in the same process, when the
	 * process it spawned has been reaped, or when it spawned none (the
	 * run stopped before, or the confinement was refused): release what
	 * `run` (out->run, maybe NULL) holds.  ended = 1: every process of
	 * the run has ended (the host reaped the process and all it left
	 * behind, or spawned none); 0: the host cannot tell, so something of
	 * the run may still be running: keep what it could still be using
	 * (bwrap keeps its pins), release the rest.  Without finish() the
	 * host never sets spawn_env.  Must not block for long. */
	void (*finish)(void *state, void *run, int ended);
};

/* Whether a descriptor (its struct_size) includes `field`: for the host,
 * and for a test that reads a descriptor. */
#define WARDEN_PLUGIN_HAS(desc, field)                                     \
	((desc)->struct_size >= offsetof(struct warden_plugin, field) +    \
	                        sizeof((desc)->field))

/* The element size of desc's runner_rules table, and whether its elements
 * include `field`. */
#define WARDEN_RUNNER_RULE_STRIDE(desc)                                    \
	(WARDEN_PLUGIN_HAS(desc, runner_rule_size) &&                      \
	 (desc)->runner_rule_size != 0                                     \
	 ? (desc)->runner_rule_size : (size_t)WARDEN_RUNNER_RULE_SIZE_1_0)
#define WARDEN_RUNNER_RULE_HAS(desc, field)                                \
	(WARDEN_RUNNER_RULE_STRIDE(desc) >=                                \
	 offsetof(struct warden_runner_rule, field) +                      \
	 sizeof(((const struct warden_runner_rule *)0)->field))

/*
 * Filling the descriptor.
 *
 * In C (C99 and later), designated initializers with the header macro:
 *
 *   WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
 *           WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
 *           .name = "mine", .version = "1.0",
 *           .open = my_open, .close = my_close, .decide = my_decide,
 *   };
 *
 * C++ has no designated initializers before C++20, and g++ -Wextra warns
 * there about every field left out.  In any C or C++ (C++11 and later),
 * the whole initializer in one macro, which lists every field in order,
 * so it needs no designated initializers and leaves no field out:
 *
 *   WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin =
 *           WARDEN_PLUGIN_ANSWERER_INIT("mine", "1.0", "what it does",
 *                                       my_open, my_close, my_decide);
 *
 * Pass NULL for what a plugin does not have (description, probe or
 * probe2, the tables).  The backend macro sets runner_rule_size.
 */
#define WARDEN_PLUGIN_HEADER_INIT(kind_)                                   \
	.abi_major = WARDEN_PLUGIN_ABI_MAJOR,                              \
	.abi_minor = WARDEN_PLUGIN_ABI_MINOR,                              \
	.struct_size = (uint32_t)sizeof(struct warden_plugin),             \
	.kind = (uint32_t)(kind_)

#define WARDEN_PLUGIN_ANSWERER_INIT(name_, version_, description_, open_,  \
                                    close_, decide_)                       \
	{ (uint32_t)WARDEN_PLUGIN_ABI_MAJOR, (uint32_t)WARDEN_PLUGIN_ABI_MINOR, \
	  (uint32_t)sizeof(struct warden_plugin),                          \
	  (uint32_t)WARDEN_PLUGIN_ANSWERER, (name_), (version_),           \
	  (description_), (open_), (close_), (decide_),                    \
	  NULL, NULL, NULL, 0, NULL, 0,                                    \
	  (size_t)sizeof(struct warden_runner_rule), NULL, NULL, NULL }

#define WARDEN_PLUGIN_BACKEND_INIT(name_, version_, description_, open_,   \
                                   close_, probe_, probe2_, confine_,      \
                                   denial_signatures_, n_denial_signatures_, \
                                   runner_rules_, n_runner_rules_)         \
	{ (uint32_t)WARDEN_PLUGIN_ABI_MAJOR, (uint32_t)WARDEN_PLUGIN_ABI_MINOR, \
	  (uint32_t)sizeof(struct warden_plugin),                          \
	  (uint32_t)WARDEN_PLUGIN_BACKEND, (name_), (version_),            \
	  (description_), (open_), (close_), NULL, (probe_), (confine_),   \
	  (denial_signatures_), (size_t)(n_denial_signatures_),            \
	  (runner_rules_), (size_t)(n_runner_rules_),                      \
	  (size_t)sizeof(struct warden_runner_rule), (probe2_), NULL, NULL }

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

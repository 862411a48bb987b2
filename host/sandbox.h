/*
 * sandbox.h — the sandbox service over the loaded backends (DESIGN §2).
 *
 * Owns: the backend order (config order), the probe of each backend per
 * mode (run once, cached for the life of the service), and confine():
 * wrapping an exact argv for a policy into a ConfinedArgv that carries the
 * replacement argv and every fact the consumer needs to spawn it and to
 * classify its result (host/classify.h).
 *
 * Fails closed: a backend that is missing, malformed, failed to open,
 * probes unusable or breaks its contract is skipped with a reason; when
 * none is left the answer is SANDBOX_UNAVAILABLE (WARDEN_EUNAVAILABLE),
 * never an unconfined argv.
 *
 * Spawning a ConfinedArgv (the consumer's side of the boundary): the
 * process must receive only descriptors 0, 1, 2, when status_fd >= 0 the
 * write end of the status channel at exactly status_fd, and each
 * descriptor the backend handed over (held_fds[i] at exactly held_at[i]:
 * the root it binds by descriptor, say).  Any other descriptor of the
 * caller would reach the confined command and let it write wherever that
 * descriptor points.  warden_confined_exec() does this in the child after
 * fork().
 *
 * Descriptors a backend hands over (push_fd) are kept only for a caller
 * that spawns the argv itself and says so (WARDEN_CONFINE_PASS_FDS);
 * otherwise push_fd closes them and answers -1, and the backend does
 * without (names the path instead) or fails.  Held descriptors are
 * close-on-exec in the host; they take the numbers from 3 up, skipping
 * the status channel's, at most WARDEN_HELD_FD_MAX of them.
 */
#ifndef WARDEN_SANDBOX_H
#define WARDEN_SANDBOX_H

#include <stddef.h>

#include <warden/plugin.h>

#include "classify.h"
#include "error.h"
#include "loader.h"
#include "spawn.h"

struct warden_sandbox;

/* A backend passed over before the one that confines: its instance name
 * and why (unusable, failed, partial under require_full). */
struct warden_skipped {
	char *backend;
	char *reason;
};

/* As many as a run can pass. */
#define WARDEN_HELD_FD_MAX WARDEN_SPAWN_PASS_MAX

/* ConfinedArgv: everything is owned by this struct (host copies). */
struct warden_confined {
	char **argv;            /* the replacement argv, NULL-terminated */
	size_t argc;
	char *backend;          /* the backend's instance name (config) */
	int mode;               /* enum warden_mode it confines for */
	int enforcement;        /* enum warden_enforcement */
	int privilege_dropped;  /* 1: no capability, no_new_privs */
	char detail[256];       /* what is partial, or "" */
	char denial_message[256]; /* the backend's words for a denial, or "" */
	char **writable_roots;  /* NULL-terminated */
	size_t n_writable_roots;
	/* Paths (globs allowed) kept read-only inside a writable root
	 * (plugin.h, push_held): NULL-terminated. */
	char **held_paths;
	size_t n_held_paths;
	int evidence;           /* enum warden_evidence in effect */
	int status_fd;          /* where the spawned process finds the status
	                           channel's write end, or -1 */
	int status_copy_at;     /* -1, or where it also finds that write end
	                           (a runner inside the sandbox reports there) */
	/* Classification facts (deep copies of the backend's tables). */
	char **denial_signatures;
	size_t n_denial_signatures;
	struct warden_runner_rule *runner_rules;
	size_t n_runner_rules;
	/* 1: judged by the backend's facts(), not a probe (see
	 * WARDEN_CONFINE_FACTS): a runner failure before exec disproves it. */
	int proven_by_facts;
	/* The backends tried before this one, in config order. */
	struct warden_skipped *skipped;
	size_t n_skipped;
	/* Descriptors the backend handed over (owned: free closes them):
	 * the spawned process finds held_fds[i] at held_at[i]. */
	int held_fds[WARDEN_HELD_FD_MAX];
	int held_at[WARDEN_HELD_FD_MAX];
	size_t n_held;
	/* The network knob it confines for (enum warden_network) and how
	 * well: full when the command reaches no socket the knob forbids
	 * (always, with the network enabled); partial otherwise, with what
	 * is missing in network_detail.  A backend of plugin ABI 1.0, or one
	 * that leaves the command its privileges, is partial. */
	int network;
	int network_enforcement;
	char network_detail[256];
	/* Given policy->spawn_env and WARDEN_CONFINE_PASS_FDS, a backend
	 * with finish() may do in this process what a launcher of its own
	 * would (plugin.h, spawn_env): envp is then the process's whole
	 * environment instead of the caller's (NULL: the caller's), and
	 * spawn_flags what the child does before exec (enum
	 * warden_spawn_flag).  The caller must spawn argv itself, as its
	 * own child, and call warden_confined_finish() once it has reaped
	 * it. */
	char **envp;
	int spawn_flags;
	/* 1: policy->tmp_dir is the command's writable temp area and /tmp the
	 * host's (plugin.h, tmp_held); 0: the backend kept a /tmp of its own. */
	int tmp_held;
	/* 1: every policy->deny_read path refuses reads inside (plugin.h,
	 * deny_read_held); 0 with some listed: enforcement is partial. */
	int deny_read_held;
	void (*finish)(void *state, void *run, int ended); /* NULL once called */
	void *finish_state;
	void *run;
};

/* The process spawned from c has been reaped, or none was spawned: the
 * backend releases what the run held (finish()); ended: every process of
 * the run is known to have ended (1), or may not have (0: the backend
 * keeps what they could be using).  Once; nothing without a finish;
 * warden_confined_free() calls it, with ended = 1, when it was not (a
 * caller that spawned calls it first). */
void warden_confined_finish(struct warden_confined *c, int ended);

/* A view of c's facts for warden_classify(); valid while c lives. */
struct warden_classify_facts warden_confined_facts(const struct warden_confined *c);

void warden_confined_free(struct warden_confined *c);
void warden_skipped_free(struct warden_skipped *list, size_t n);

/*
 * In a child after fork(), with 0, 1, 2 already in place: moves
 * status_write (the status channel's write end, or -1) to c->status_fd
 * and each held descriptor to its number, closes every other descriptor
 * above 2, and execs c->argv.  Returns only
 * on failure, with errno set; the caller then _exit()s.  Async-signal-safe.
 * A confinement with an environment or spawn flags of the backend's
 * (spawn_env) is refused (EINVAL): warden_spawn_run() gives them.
 */
int warden_confined_exec(const struct warden_confined *c, int status_write);

/* A policy with every field at its "none" value: no status channel, no
 * root descriptor, no read-only paths, the network enabled (what a
 * v1.0 confinement did).  Callers then set mode, root and what they have. */
void warden_policy_init(struct warden_policy *p);

/* Builds the service over `backends` (config order, as the loader filled
 * them).  The service borrows the array; it must outlive the service. */
int warden_sandbox_new(struct warden_loaded *backends, size_t n,
                       struct warden_sandbox **out, struct warden_error *err);

/* Builds the service over every [backend] section of cfg, in config
 * order; the service owns them (free unloads).  Each is loaded and opened
 * the first time it is needed (probed, judged or tried by a confine, or
 * named by warden_sandbox_backend()), never before: a run that the first
 * backend confines does not load the others.  A backend that does not
 * load is kept, unusable with the loader's reason.  cfg must outlive the
 * service. */
int warden_sandbox_open(const struct warden_config *cfg,
                        struct warden_sandbox **out, struct warden_error *err);

void warden_sandbox_free(struct warden_sandbox *svc);

size_t warden_sandbox_count(const struct warden_sandbox *svc);
/* Backend i (loaded first, when the service loads its own). */
const struct warden_loaded *warden_sandbox_backend(struct warden_sandbox *svc,
                                                   size_t i);

/*
 * The probe of backend i for mode (enum warden_mode), run once and
 * cached.  Always fills *out: a backend that is not loaded, or whose probe
 * failed or broke the contract, is usable = 0 with the reason in detail.
 * A backend that does not drop privilege is never reported `full`.
 */
void warden_sandbox_probe(struct warden_sandbox *svc, size_t i, int mode,
                          struct warden_probe *out);

/* 1 when the same probe said confine() hides the deny_read paths in mode
 * (probe2, ABI 1.3); 0 when it cannot, did not say or is unusable. */
int warden_sandbox_probe_deny_read(struct warden_sandbox *svc, size_t i, int mode);

/* What the same probe said of a restricted network (only a backend with
 * probe2, ABI 1.1, says it): enum warden_enforcement, or 0 when the
 * backend did not say or is unusable; detail (len bytes) what is partial.
 * Never full for a command that keeps its privileges. */
int warden_sandbox_probe_network(struct warden_sandbox *svc, size_t i, int mode,
                                 char *detail, size_t len);

/*
 * Confines argv (argc entries, exact) for policy with the first backend,
 * in config order, whose probe says it can enforce policy->mode.  The
 * policy's root is resolved (realpath) and must be an existing directory;
 * status_fd is -1 or >= 3.
 *
 * Errors: danger-full-access or an unknown mode: WARDEN_EINTERNAL (a
 * caller bug: that mode is never confined); empty argv, a relative,
 * missing or unresolvable root, or a bad status_fd: WARDEN_EUSAGE; a
 * root_fd that is not the resolved root's directory (it moved since the
 * caller checked it): WARDEN_EDATA; no usable backend:
 * WARDEN_EUNAVAILABLE with "SANDBOX_UNAVAILABLE: ..." listing each
 * backend's reason.  A backend that leaves read_only_held 0 while one of
 * policy->read_only_paths lies under a root it made writable (or such a
 * root under one) is passed over like an unusable one, naming the path.
 */
int warden_sandbox_confine(struct warden_sandbox *svc,
                           const char *const *argv, size_t argc,
                           const struct warden_policy *policy,
                           struct warden_confined **out,
                           struct warden_error *err);

/* warden_sandbox_confine() with flags: */
enum {
	/* Only a backend whose confinement is `full`, for the files and,
	 * with the network restricted, for the network; a partial one is
	 * skipped ("partial (...), and require_full is set"); when usable
	 * backends exist but none is full: WARDEN_EREFUSED ("refused: ..."). */
	WARDEN_CONFINE_REQUIRE_FULL = 1,
	/* The caller spawns the argv itself and gives the process what
	 * the backend hands over (held_fds): push_fd keeps descriptors. */
	WARDEN_CONFINE_PASS_FDS = 2,
	/* The run is the proof: a backend with a facts() op is judged by it
	 * instead of a probe (a backend without one is probed), and the
	 * confinement says so (proven_by_facts).  The caller must then read
	 * the run's out-of-band evidence: when the runner failed before exec,
	 * nothing ran; warden_sandbox_disprove() the backend and confine
	 * again (it is then probed for real). */
	WARDEN_CONFINE_FACTS = 4,
};
int warden_sandbox_confine_flags(struct warden_sandbox *svc,
                                 const char *const *argv, size_t argc,
                                 const struct warden_policy *policy, int flags,
                                 struct warden_confined **out,
                                 struct warden_error *err);

/* After a run confined with WARDEN_CONFINE_FACTS by `backend` whose
 * runner failed before exec: that backend's facts are disproven for the
 * life of svc, and every later confine probes it for real.  Returns 0,
 * or -1 when no backend has that name or it was not judged by facts
 * (then a retry would change nothing). */
int warden_sandbox_disprove(struct warden_sandbox *svc, const char *backend,
                            int mode);

/* A server's: judges every backend that has facts() for both confining
 * modes now, so that the processes it forks inherit the answers. */
void warden_sandbox_judge_all(struct warden_sandbox *svc);
/* A server's, after a run in a fork disproved backend's facts for mode:
 * disproves them here too and probes it for real at once, so that the
 * next fork inherits the probe's answer.  0, or -1 as
 * warden_sandbox_disprove(). */
int warden_sandbox_reprove(struct warden_sandbox *svc, const char *backend,
                           int mode);

/* The same with only the backend named `backend` (an instance name);
 * an unknown name is WARDEN_EUSAGE. */
int warden_sandbox_confine_with(struct warden_sandbox *svc, const char *backend,
                                const char *const *argv, size_t argc,
                                const struct warden_policy *policy,
                                struct warden_confined **out,
                                struct warden_error *err);

#endif

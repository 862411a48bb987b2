/*
 * spawn.h — runs one exact argv to completion for `warden run`.
 *
 * Owns the life of the process tree of one run:
 *
 *   program   argv[0] with a '/' is executed as is; a bare name is looked
 *             up in the caller's PATH like execvp(3) (empty PATH entries
 *             are the current directory; default "/usr/local/bin:/usr/bin:
 *             /bin").  Never a shell: a file the kernel cannot execute
 *             (ENOEXEC) is an exec error, not a script for /bin/sh.  An
 *             exec error is reported in the result (nothing ran).  With
 *             exec_fd, no lookup: that descriptor is executed (fexecve),
 *             argv[0] being only the name the program sees.
 *
 *   output    stdin and stdout are the caller's own descriptors.  stderr
 *             goes through a pipe: every byte is copied to the caller's
 *             stderr as it arrives, and the last WARDEN_SPAWN_TAIL bytes
 *             are kept for classification.  With pipe_stdout, stdout goes
 *             through a pipe too, copied the same way, so that the caller
 *             knows whether the output ended with a newline (a result line
 *             printed after it must start a line of its own).
 *
 *   fds       only 0, 1, 2 reach the program, plus, when status_fd >= 3,
 *             the write end of the out-of-band status channel at exactly
 *             that number (the runner's; the backend keeps it from the
 *             command), and each pass_fds[i] at exactly pass_at[i] (what a
 *             backend holds for its runner, e.g. the root it binds by
 *             descriptor).  Whatever the channel carries is read into
 *             `evidence`, at most WARDEN_SPAWN_EVIDENCE bytes.
 *
 *   directory the program starts in the caller's current directory, or in
 *             the directory cwd_fd names.
 *
 *   group     the program starts in a session and process group of its
 *             own (setsid): it has no controlling terminal, so terminal
 *             job control cannot stop it and it cannot push input into
 *             the caller's terminal through one.  On timeout the group
 *             gets SIGTERM; on SIGINT, SIGTERM, SIGHUP or SIGQUIT to the
 *             host, the group gets that signal; either way SIGKILL follows
 *             after the grace period.
 *
 *   leftovers a run owns everything it started.  When the program exits,
 *             what is left of its group is killed, and the host (a child
 *             subreaper while it spawns, on Linux) kills and reaps every
 *             descendant that left the group, so nothing outlives the run.
 *
 * The host's own SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGCHLD/SIGPIPE dispositions
 * are replaced for the duration of the call and restored after it.
 */
#ifndef WARDEN_SPAWN_H
#define WARDEN_SPAWN_H

#include <stddef.h>

#include "error.h"

#define WARDEN_SPAWN_TAIL 8192
#define WARDEN_SPAWN_EVIDENCE 4096
#define WARDEN_SPAWN_GRACE_MS 2000
/* The most descriptors a run can pass besides stdio and status. */
#define WARDEN_SPAWN_PASS_MAX 256

struct warden_spawn_opts {
	const char *const *argv;  /* exact program and arguments, argv[0] set */
	char *const *envp;        /* the program's whole environment */
	int status_fd;            /* -1, or the fd number (>= 3) of the status
	                             channel's write end in the program */
	int status_copy_at;       /* > 2: a second number for that write end
	                             (never a pass_at one) */
	const int *pass_fds;      /* n_pass descriptors the program gets ... */
	const int *pass_at;       /* ... at these numbers (>= 3, distinct,
	                             never status_fd) */
	size_t n_pass;
	int cwd_fd;               /* > 2: a directory to start the program
	                             in; 0: the caller's current directory */
	long timeout_ms;          /* 0: no timeout */
	long grace_ms;            /* SIGTERM to SIGKILL; 0: WARDEN_SPAWN_GRACE_MS */
	int pipe_stdout;          /* 1: stdout through a pipe (see above) */
	const char *gate_token;   /* NULL, or (with status_fd) the whole
	                             message by which the status channel says
	                             that exec happened: stderr is held back
	                             until the channel reaches EOF, then copied
	                             out if it carried exactly this, else kept
	                             only in the tail (stderr_withheld): a
	                             runner that failed before exec has
	                             printed nothing yet */
	int exec_fd;              /* > 2: the file to execute (fexecve); 0:
	                             argv[0] is looked up */
	int exec_keep;            /* with exec_fd: it stays open in the
	                             program (a script's interpreter reads it
	                             as /dev/fd/N) */
	int flags;                /* enum warden_spawn_flag (plugin.h): what
	                             the child does before exec for a backend;
	                             one it cannot do fails the exec */
};

/*
 * In a child after fork(): puts each of the n descriptors fds[i] at the
 * number at[i] (without close-on-exec), top being the highest number
 * anything kept must take (the status channel's included); the copies
 * made on the way are close-on-exec.  0, or -1 with errno.
 * Async-signal-safe.
 */
int warden_fds_place(const int *fds, const int *at, size_t n, int top);

struct warden_spawn_result {
	int exec_errno;           /* nonzero: argv[0] could not be executed,
	                             nothing ran, the rest is meaningless */
	int wait_status;          /* the program's status, as from waitpid() */
	int timed_out;            /* 1: the timeout fired */
	int host_signal;          /* the signal the host received and
	                             forwarded to the group, or 0 */
	long duration_ms;         /* from start to the program's exit */
	char tail[WARDEN_SPAWN_TAIL];
	size_t tail_len;          /* bytes in tail: the last of stderr */
	size_t stderr_total;      /* every byte stderr carried */
	size_t stdout_total;      /* with pipe_stdout: every byte of stdout */
	int stdout_last;          /* with pipe_stdout: its last byte, or 0 */
	char evidence[WARDEN_SPAWN_EVIDENCE];
	size_t evidence_len;
	size_t stderr_withheld;   /* with gate_token: bytes of stderr never
	                             copied out (the last of them are the
	                             tail's); 0 once the gate opened */
	int all_ended;            /* 1: the program and everything it left
	                             behind are known to have ended (reaped
	                             as a subreaper, or nothing was
	                             executed); 0: something may still run */
};

/* Runs o->argv to completion.  Returns 0 with *r filled (also when exec
 * failed: r->exec_errno), or -WARDEN_EOS / -WARDEN_EUSAGE with err when
 * the run could not be set up (nothing ran). */
int warden_spawn_run(const struct warden_spawn_opts *o,
                     struct warden_spawn_result *r, struct warden_error *err);

#endif

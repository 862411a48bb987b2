/*
 * runner.h — what warden-landlock-run and the landlock backend must agree on.
 *
 * The backend classifies a finished run by the runner's own words: its exit
 * code, the prefix of its one fatal line, and the exact informational line
 * it prints on a kernel whose Landlock ABI cannot govern every write.  These
 * strings live here once so that the runner and the rule the backend hands
 * to the host can never drift apart.
 */
#ifndef WARDEN_LANDLOCK_RUNNER_H
#define WARDEN_LANDLOCK_RUNNER_H

#include <warden/plugin.h>

#define WARDEN_LANDLOCK_RUNNER_NAME "warden-landlock-run"

/* Every failure of the runner before the command runs exits with this. */
#define WARDEN_LANDLOCK_RUNNER_EXIT 125

/* The start of the runner's one fatal stderr line:
 * "warden-landlock-run: fatal: WHAT: WHY". */
#define WARDEN_LANDLOCK_FATAL_PREFIX WARDEN_LANDLOCK_RUNNER_NAME ": fatal: "

/* The status pipe's messages (WARDEN_EVIDENCE_EXEC_PIPE in plugin.h):
 * the first line, written as soon as the runner holds the descriptor, and
 * the start of the line written on failure. */
#define WARDEN_LANDLOCK_STATUS_STARTED WARDEN_EXEC_PIPE_STARTED
#define WARDEN_LANDLOCK_STATUS_FATAL WARDEN_EXEC_PIPE_FATAL

/* The one informational line of a kernel whose Landlock ABI predates
 * LANDLOCK_ACCESS_FS_TRUNCATE (ABI 3): truncate(2) of a file outside the
 * writable roots is then not refused.  ABI 1 also always refuses renames
 * and links across directories (stricter, not looser).  The runner prints
 * the line for its kernel and goes on; the backend removes both lines
 * before it looks for fatal lines. */
#define WARDEN_LANDLOCK_NOTICE_ABI(n)                                       \
	WARDEN_LANDLOCK_RUNNER_NAME ": notice: landlock ABI " #n              \
	" is partial: truncate outside the writable roots is not governed"
#define WARDEN_LANDLOCK_NOTICE_ABI1 WARDEN_LANDLOCK_NOTICE_ABI(1)
#define WARDEN_LANDLOCK_NOTICE_ABI2 WARDEN_LANDLOCK_NOTICE_ABI(2)

/* The lowest Landlock ABI that governs every write the modes promise to
 * refuse (truncate needs ABI 3). */
#define WARDEN_LANDLOCK_FULL_ABI 3

/* The newest Landlock ABI the runner knows; a newer kernel is used at
 * this one. */
#define WARDEN_LANDLOCK_MAX_ABI 7

/* `warden-landlock-run --probe` prints one line, e.g.
 *   abi=7 enforcement=full namespaces=yes
 * namespaces=yes: the runner can give the command IPC and PID namespaces
 * of its own (root, or an unprivileged user namespace), so nothing it does
 * to SysV IPC or POSIX message queues reaches the host and nothing it
 * starts outlives the runner; no: SysV IPC and message queues are refused
 * by the seccomp guard and only the command itself dies with the runner
 * (the backend then passes --no-namespaces to every run).  enforcement is
 * what the kernel's Landlock ABI, the runner's metadata guard and the
 * namespaces give in read-only mode.  workspace-write is always partial:
 * see landlock.c. */
#define WARDEN_LANDLOCK_PROBE_FORMAT "abi=%d enforcement=%s namespaces=%s"

#endif

/*
 * fuzz_session.c — libFuzzer target for the session log: the bounded
 * check that every policy resolution makes (the first line and the tail,
 * warden_session_open), the full replay and fold (warden_session_replay),
 * and an append onto whatever the log holds.
 *
 * The input is written as a session's log file.  Beyond memory safety:
 *   - a log that replays whole must also open, and the knobs and last seq
 *     the bounded tail check found must equal the full fold's: resolution
 *     by the tail never disagrees with replay;
 *   - after a successful append, the log still replays whole, one seq
 *     further, with the knobs the append reported.
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session.h"
#include "vocab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct warden_config *cfg;
static char logpath[PATH_MAX + 32];

static char statedir[PATH_MAX];

static void cleanup(void)
{
	unlink(logpath);
	rmdir(statedir);
}

static void setup(void)
{
	char dir[] = "/tmp/warden-fuzz-session-XXXXXX", text[PATH_MAX + 64];
	struct warden_error err = { 0 };

	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(text, sizeof(text), "[warden]\nstate_dir = %s\ndurability = none\n", dir);
	if (warden_config_parse(text, "<fuzz>", &cfg, &err) != 0)
		abort();
	snprintf(logpath, sizeof(logpath), "%s/fz.jsonl", dir);
	snprintf(statedir, sizeof(statedir), "%s", dir);
	atexit(cleanup);
}

static int same_knobs(const struct warden_knobs *a, const struct warden_knobs *b)
{
	return a->mode == b->mode && a->policy == b->policy &&
	       strcmp(a->preset, b->preset) == 0;
}

static int write_log(const uint8_t *data, size_t size)
{
	int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t done = 0;

	if (fd < 0)
		abort();
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	close(fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct warden_error err = { 0 };
	struct warden_session *s;
	struct warden_knobs full, tail;
	uint64_t seq;
	int changed;

	if (cfg == NULL)
		setup();
	if (size > 64 * 1024)
		return 0;
	write_log(data, size);
	if (warden_session_open(cfg, "fz", &s, &err) != 0)
		return 0;   /* refused: damage near the head or the tail */
	tail = *warden_session_knobs(s);
	seq = warden_session_last_seq(s);
	if (warden_session_replay(s, NULL, NULL, &full, &err) == 0) {
		if (!same_knobs(&tail, &full))
			abort();    /* the tail check and the fold disagree */
		if (warden_session_set_mode(s, tail.mode == WARDEN_MODE_READ_ONLY
		                                   ? WARDEN_MODE_WORKSPACE_WRITE
		                                   : WARDEN_MODE_READ_ONLY,
		                            &changed, &err) == 0) {
			struct warden_knobs after = *warden_session_knobs(s), again;

			if (warden_session_replay(s, NULL, NULL, &again, &err) != 0)
				abort();    /* an append left a log that does not replay */
			if (!same_knobs(&after, &again) ||
			    warden_session_last_seq(s) != seq + (changed ? 1 : 0))
				abort();
		}
	}
	warden_session_close(s);
	return 0;
}

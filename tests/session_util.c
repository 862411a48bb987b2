/* session_util.c — see session_util.h. */
#include "config.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "session_util.h"
#include "vocab.h"

int sfix_setup(void **state)
{
	struct sfix *f = calloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "%s/warden-session-XXXXXX",
	         tmp && tmp[0] ? tmp : "/tmp");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->state, sizeof(f->state), "%s/state/sessions", f->dir);
	f->cfg.file = (char *)"<test>";
	f->cfg.dir = f->dir;
	f->cfg.default_mode = WARDEN_SANDBOX_WORKSPACE_WRITE;
	f->cfg.approval_policy = WARDEN_POLICY_ASK;
	f->cfg.state_dir = f->state;
	f->cfg.durability = WARDEN_DURABILITY_NONE;
	*state = f;
	return 0;
}

int sfix_teardown(void **state)
{
	struct sfix *f = *state;

	sfix_rm_rf(f->dir);
	free(f);
	return 0;
}

const char *sfix_log_path(const struct sfix *f, const char *id)
{
	static char buf[PATH_MAX + 300];

	snprintf(buf, sizeof(buf), "%s/%s.jsonl", f->state, id);
	return buf;
}

char *sfix_read(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long n;

	if (fp == NULL)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	if (len != NULL)
		*len = (size_t)n;
	return buf;
}

void sfix_write(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CREAT, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

void sfix_append(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	close(fd);
}

size_t sfix_count_lines(const char *path)
{
	size_t len, i, n = 0;
	char *buf = sfix_read(path, &len);

	assert_non_null(buf);
	for (i = 0; i < len; i++)
		n += buf[i] == '\n';
	free(buf);
	return n;
}

static int rm_one(const char *path, const struct stat *st, int flag,
                  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void sfix_rm_rf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

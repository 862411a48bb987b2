/* wjson.c — see wjson.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "error.h"
#include "wjson.h"

static unsigned long failures;
static int installed;

static void *counting_malloc(size_t n)
{
	void *p = malloc(n);

	if (p == NULL)
		__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
	return p;
}

/* jansson 2.14 can crash on a failed allocation inside its parser, so a
 * process that cannot afford that ends here, cleanly: nothing half done
 * was written (every append is one write(2) of a line built in full). */
static void *exiting_malloc(size_t n)
{
	static const char msg[] = "warden: out of memory\n";
	void *p = malloc(n);

	if (p == NULL) {
		__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
			/* nothing more to say */
		}
		_exit(WARDEN_EOS);
	}
	return p;
}

void warden_json_init(void)
{
	if (!__atomic_exchange_n(&installed, 1, __ATOMIC_ACQ_REL))
		json_set_alloc_funcs(counting_malloc, free);
}

void warden_json_init_exiting(void)
{
	__atomic_store_n(&installed, 1, __ATOMIC_RELEASE);
	json_set_alloc_funcs(exiting_malloc, free);
}

unsigned long warden_json_failures(void)
{
	return __atomic_load_n(&failures, __ATOMIC_RELAXED);
}

json_t *warden_json_string_lossy(const char *s)
{
	json_t *j = json_string(s);
	char *copy;
	size_t i;

	if (j != NULL || s == NULL)
		return j;
	copy = strdup(s);
	if (copy == NULL)
		return NULL;
	for (i = 0; copy[i]; i++)
		if ((unsigned char)copy[i] >= 0x80)
			copy[i] = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

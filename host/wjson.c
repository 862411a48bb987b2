/* wjson.c — see wjson.h. */
#include "config.h"

#include <stdlib.h>

#include <jansson.h>

#include "wjson.h"

static unsigned long failures;

static void *counting_malloc(size_t n)
{
	void *p = malloc(n);

	if (p == NULL)
		__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
	return p;
}

void warden_json_init(void)
{
	json_set_alloc_funcs(counting_malloc, free);
}

unsigned long warden_json_failures(void)
{
	return __atomic_load_n(&failures, __ATOMIC_RELAXED);
}

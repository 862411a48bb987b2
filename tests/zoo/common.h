/*
 * common.h — ops shared by the broken plugins of the zoo, so that each of
 * them differs from a valid answerer in exactly the one defect it tests.
 */
#ifndef ZOO_COMMON_H
#define ZOO_COMMON_H

#include <stdio.h>

#include <warden/plugin.h>

static int zoo_instance;

static inline void *zoo_open(const struct warden_open_args *args, char *err,
                             size_t errlen)
{
	(void)args;
	(void)err;
	(void)errlen;
	return &zoo_instance;
}

static inline void zoo_close(void *state)
{
	(void)state;
}

static inline int zoo_decide(void *state, const struct warden_request *req,
                             char *err, size_t errlen)
{
	(void)state;
	(void)req;
	(void)err;
	(void)errlen;
	return WARDEN_DECISION_DELEGATE;
}

#define ZOO_ANSWERER_OPS .open = zoo_open, .close = zoo_close, .decide = zoo_decide

#endif

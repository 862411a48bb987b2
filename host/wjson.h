/*
 * wjson.h — jansson's allocations, counted.
 *
 * jansson reports a failed allocation in ways that can look like bad
 * input (a parse may fail as "premature end of input"), and its setters
 * drop a key silently.  With these hooks installed, a caller tells "out
 * of memory" from "damaged" by whether the count of failed allocations
 * moved: a session line that failed to parse for want of memory is never
 * taken for a torn or damaged line.
 */
#ifndef WARDEN_WJSON_H
#define WARDEN_WJSON_H

/* Installs the counting allocator (idempotent; safe at any time: it
 * allocates with malloc and frees with free, like jansson's default). */
void warden_json_init(void);

/* The number of jansson allocations that failed in this process. */
unsigned long warden_json_failures(void);

#endif

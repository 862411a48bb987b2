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

/* Installs the counting allocator unless an allocator of this file is
 * installed already (idempotent; safe at any time: it allocates with
 * malloc and frees with free, like jansson's default). */
void warden_json_init(void);

/* For the command line: a failed jansson allocation ends the process
 * with "warden: out of memory" and status 71 (WARDEN_EOS) at once, before
 * jansson can misbehave on it (2.14 may crash in its parser).  Installed
 * before anything uses jansson; warden_json_init() then keeps it. */
void warden_json_init_exiting(void);

/* A jansson string for text that may not be UTF-8 (a config value, a
 * plugin's reason, an argv): bytes that would make it invalid become '?'.
 * NULL when out of memory. */
struct json_t;
struct json_t *warden_json_string_lossy(const char *s);

/* The number of jansson allocations that failed in this process. */
unsigned long warden_json_failures(void);

#endif

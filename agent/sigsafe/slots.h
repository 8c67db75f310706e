/* slots.h: how many thread slots there are. A Java thread's slot (threads.c, the registry)
 * indexes every per-slot table: the context table, the thread filter, the handler's wall
 * claims (DESIGN.md, "Per-thread state"). Those tables need only the count, not the registry:
 * here so that they include no more than it. */
#ifndef SLOTS_H
#define SLOTS_H

#define THREADS_MAX 32768 /* slots: the most Java threads alive at once */
#define THREADS_WORDS (THREADS_MAX / 64)

#endif

/* SPDX-License-Identifier: MIT */
/* An intrusive doubly linked list in the kernel's shape (list_head). */
#ifndef TTM_LIST_H
#define TTM_LIST_H

#include <stdbool.h>
#include <stddef.h>

#ifndef container_of
#define container_of(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))
#endif

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)                                                                       \
	{                                                                                          \
		&(name), &(name)                                                                   \
	}

/*
 * Every store to a ->prev is a relaxed atomic store (a plain mov): a list's
 * head->prev may be read without the list's lock by list_is_tail_lockless().
 */
static inline void list_set_prev_(struct list_head *l, struct list_head *prev)
{
	__atomic_store_n(&l->prev, prev, __ATOMIC_RELAXED);
}

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l;
	list_set_prev_(l, l);
}

static inline bool list_empty(const struct list_head *l)
{
	return l->next == l;
}

/*
 * Whether @e was the last entry of @head at some instant of this call, read
 * without the lock that serialises @head's writers (their ->prev stores are
 * atomic). The answer is a snapshot: the caller must hold what keeps @e
 * itself from being moved off @head, and must be content with an answer a
 * concurrent writer may change at once (an LRU bump that finds its entry
 * last already: the writer's later add orders after the bump).
 */
static inline bool list_is_tail_lockless(const struct list_head *e, const struct list_head *head)
{
	return __atomic_load_n(&head->prev, __ATOMIC_RELAXED) == e;
}

static inline void list_insert_(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	list_set_prev_(next, n);
	n->next = next;
	list_set_prev_(n, prev);
	prev->next = n;
}

static inline void list_add(struct list_head *n, struct list_head *head)
{
	list_insert_(n, head, head->next);
}

static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	list_insert_(n, head->prev, head);
}

/* Unlink @e and leave it pointing at itself, so list_empty(e) is true. */
static inline void list_del_init(struct list_head *e)
{
	e->prev->next = e->next;
	list_set_prev_(e->next, e->prev);
	INIT_LIST_HEAD(e);
}

static inline void list_move_tail(struct list_head *e, struct list_head *head)
{
	list_del_init(e);
	list_add_tail(e, head);
}

/* Move every entry of @from to the tail of @to; @from ends empty. */
static inline void list_splice_tail_init(struct list_head *from, struct list_head *to)
{
	if (list_empty(from))
		return;
	list_set_prev_(from->next, to->prev);
	to->prev->next = from->next;
	from->prev->next = to;
	list_set_prev_(to, from->prev);
	INIT_LIST_HEAD(from);
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_for_each_entry(pos, head, type, member)                                               \
	for (pos = list_entry((head)->next, type, member); &pos->member != (head);                 \
	     pos = list_entry(pos->member.next, type, member))
#define list_for_each_entry_safe(pos, n, head, type, member)                                       \
	for (pos = list_entry((head)->next, type, member),                                         \
	    n = list_entry(pos->member.next, type, member);                                        \
	     &pos->member != (head); pos = n, n = list_entry(n->member.next, type, member))

#endif /* TTM_LIST_H */

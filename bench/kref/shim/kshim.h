/* SPDX-License-Identifier: MIT */
/*
 * kshim.h - the kernel basics the Linux 6.12 TTM sources need, as userspace
 * C, written for the kernel-reference benchmark (bench/kref). Every fake
 * <linux/...>, <asm/...> header of this directory includes this one file,
 * so whichever header a kernel source names, all of it is there.
 *
 * Nothing here includes a C library header: the kernel sources define names
 * (min, max, list_head, bool) the C library would clash with. The few libc
 * functions the implementations need are declared in kshim.c.
 *
 * Every simplification is listed, with the direction it biases the
 * comparison, in bench/kref/README.md. The kernel sources themselves are
 * never copied here; only their interfaces are re-declared.
 */
#ifndef KSHIM_H
#define KSHIM_H

/* ------------------------------------------------------------ config */
#define CONFIG_64BIT 1
#define CONFIG_X86 1
#define CONFIG_X86_64 1
#define CONFIG_SMP 1
#define CONFIG_NR_CPUS 64
#define CONFIG_HZ 250
#define HZ CONFIG_HZ
#define BITS_PER_LONG 64
#define BITS_PER_LONG_LONG 64
#define __BITS_PER_LONG 64
#define L1_CACHE_BYTES 64
#define SMP_CACHE_BYTES 64
#define ____cacheline_aligned __attribute__((__aligned__(SMP_CACHE_BYTES)))
#define ____cacheline_aligned_in_smp ____cacheline_aligned
#define __cacheline_aligned ____cacheline_aligned

#define __is_defined(x) ___is_defined(x)
#define ___is_defined(val) ____is_defined(__ARG_PLACEHOLDER_##val)
#define __ARG_PLACEHOLDER_1 0,
#define ____is_defined(arg1_or_junk) __take_second_arg(arg1_or_junk 1, 0)
#define __take_second_arg(__ignored, val, ...) val
#define IS_BUILTIN(option) __is_defined(option)
#define IS_MODULE(option) __is_defined(option##_MODULE)
#define IS_ENABLED(option) (IS_BUILTIN(option) || IS_MODULE(option))
#define IS_REACHABLE(option) IS_ENABLED(option)

/* ---------------------------------------------------------- compiler */
#define __always_inline inline __attribute__((__always_inline__))
#define noinline __attribute__((__noinline__))
#define __noreturn __attribute__((__noreturn__))
#define __packed __attribute__((__packed__))
#define __aligned(x) __attribute__((__aligned__(x)))
#define __maybe_unused __attribute__((__unused__))
#define __always_unused __attribute__((__unused__))
#define __used __attribute__((__used__))
#define __weak __attribute__((__weak__))
#define __pure __attribute__((__pure__))
#define __cold __attribute__((__cold__))
#define __printf(a, b) __attribute__((__format__(printf, a, b)))
#define __must_check __attribute__((__warn_unused_result__))
#define __malloc __attribute__((__malloc__))
#define __alloc_size(...)
#define __realloc_size(...)
#define __counted_by(m)
#define __nonstring
#define __randomize_layout
#define __no_randomize_layout
#define __designated_init
#define __section(s) __attribute__((__section__(s)))
#define __init
#define __exit
#define __initdata
#define __initconst
#define __ref
#define __sched
#define __iomem
#define __user
#define __kernel
#define __force
#define __rcu
#define __percpu
#define __bitwise
#define __safe
#define __private
#define __cond_acquires(x)
#define __acquires(x)
#define __releases(x)
#define __acquire(x) (void)0
#define __release(x) (void)0
#define __must_hold(x)
#define __no_kcsan
#define __no_sanitize_address
#define noinstr
#define notrace
#define fallthrough __attribute__((__fallthrough__))
#define __stringify_1(x...) #x
#define __stringify(x...) __stringify_1(x)
#define ___PASTE(a, b) a##b
#define __PASTE(a, b) ___PASTE(a, b)
#define __UNIQUE_ID(prefix) __PASTE(__PASTE(__UNIQUE_ID_, prefix), __COUNTER__)
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define likely_notrace(x) likely(x)
#define unlikely_notrace(x) unlikely(x)
#define barrier() __asm__ __volatile__("" : : : "memory")
#define barrier_data(ptr) __asm__ __volatile__("" : : "r"(ptr) : "memory")
#define __same_type(a, b) __builtin_types_compatible_p(typeof(a), typeof(b))
#define __must_be_array(a) 0
#define ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]))
#define OPTIMIZER_HIDE_VAR(var) __asm__("" : "=r"(var) : "0"(var))
#define unreachable() __builtin_unreachable()
#define __is_constexpr(x) (sizeof(int) == sizeof(*(8 ? ((void *)((long)(x)*0l)) : (int *)8)))
#define __native_word(t)                                                                           \
	(sizeof(t) == sizeof(char) || sizeof(t) == sizeof(short) || sizeof(t) == sizeof(int) ||    \
	 sizeof(t) == sizeof(long))
#define __scalar_type_to_expr_cases(type)                                                          \
	unsigned type : (unsigned type)0, signed type : (signed type)0
#define __unqual_scalar_typeof(x)                                                                  \
	typeof(_Generic((x), char                                                                  \
			: (char)0, __scalar_type_to_expr_cases(char),                              \
			  __scalar_type_to_expr_cases(short), __scalar_type_to_expr_cases(int),    \
			  __scalar_type_to_expr_cases(long),                                       \
			  __scalar_type_to_expr_cases(long long), default                          \
			: (x)))

#define READ_ONCE(x) (*(const volatile __unqual_scalar_typeof(x) *)&(x))
#define WRITE_ONCE(x, val)                                                                         \
	do {                                                                                       \
		*(volatile typeof(x) *)&(x) = (val);                                               \
	} while (0)
#define data_race(expr) (expr)
#define ASSERT_EXCLUSIVE_WRITER(var)                                                               \
	do {                                                                                       \
	} while (0)
#define kcsan_check_access(...)                                                                    \
	do {                                                                                       \
	} while (0)

#define BUILD_BUG_ON_ZERO(e) ((int)(sizeof(struct { int : (-!!(e)); })))
#define BUILD_BUG_ON_MSG(cond, msg) _Static_assert(!(cond), msg)
/* As the kernel's compiletime_assert(): the optimiser must remove the call. */
extern void kshim_build_bug(void) __attribute__((__error__("BUILD_BUG_ON failed")));
#define BUILD_BUG_ON(condition)                                                                    \
	do {                                                                                       \
		if (condition)                                                                     \
			kshim_build_bug();                                                         \
	} while (0)
#define BUILD_BUG()                                                                                \
	do {                                                                                       \
	} while (0)
#define BUILD_BUG_ON_INVALID(e) ((void)(sizeof((long)(e))))
#define static_assert(expr, ...) __static_assert(expr, ##__VA_ARGS__, #expr)
#define __static_assert(expr, msg, ...) _Static_assert(expr, msg)

/* ------------------------------------------------------------- types */
typedef signed char s8;
typedef unsigned char u8;
typedef short s16;
typedef unsigned short u16;
typedef int s32;
typedef unsigned int u32;
typedef long long s64;
typedef unsigned long long u64;
typedef s8 __s8;
typedef u8 __u8;
typedef s16 __s16;
typedef u16 __u16;
typedef s32 __s32;
typedef u32 __u32;
typedef s64 __s64;
typedef u64 __u64;
typedef u16 __le16;
typedef u32 __le32;
typedef u64 __le64;
typedef u16 __be16;
typedef u32 __be32;
typedef u64 __be64;
typedef _Bool bool;
#define true 1
#define false 0
typedef unsigned long size_t;
typedef long ssize_t;
typedef long ptrdiff_t;
typedef unsigned long uintptr_t;
typedef long intptr_t;
typedef unsigned long long uint64_t;
typedef long long int64_t;
typedef unsigned int uint32_t;
typedef int int32_t;
typedef unsigned short uint16_t;
typedef unsigned char uint8_t;
typedef long long loff_t;
typedef long off_t;
typedef int pid_t;
typedef unsigned int gfp_t;
typedef unsigned int fmode_t;
typedef unsigned short umode_t;
typedef u64 phys_addr_t;
typedef u64 resource_size_t;
typedef u64 dma_addr_t;
typedef unsigned long pgoff_t;
typedef unsigned long sector_t;
typedef s64 ktime_t;
typedef s64 time64_t;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef unsigned char unchar;
typedef unsigned short ushort;
typedef unsigned int vm_fault_t;
typedef unsigned long vm_flags_t;
typedef struct {
	unsigned long pgprot;
} pgprot_t;
#define __pgprot(x) ((pgprot_t){(x)})
#define pgprot_val(x) ((x).pgprot)

#define NULL ((void *)0)
#define offsetof(TYPE, MEMBER) __builtin_offsetof(TYPE, MEMBER)
#define offsetofend(TYPE, MEMBER) (offsetof(TYPE, MEMBER) + sizeof(((TYPE *)0)->MEMBER))
#define sizeof_field(TYPE, MEMBER) sizeof((((TYPE *)0)->MEMBER))
#define typeof_member(T, m) typeof(((T *)0)->m)

#define U8_MAX ((u8)~0U)
#define U16_MAX ((u16)~0U)
#define U32_MAX ((u32)~0U)
#define S32_MAX ((s32)(U32_MAX >> 1))
#define S32_MIN ((s32)(-S32_MAX - 1))
#define U64_MAX ((u64)~0ULL)
#define S64_MAX ((s64)(U64_MAX >> 1))
#define S64_MIN ((s64)(-S64_MAX - 1))
#define INT_MAX ((int)(~0U >> 1))
#define INT_MIN (-INT_MAX - 1)
#define UINT_MAX (~0U)
#define LONG_MAX ((long)(~0UL >> 1))
#define LONG_MIN (-LONG_MAX - 1)
#define ULONG_MAX (~0UL)
#define LLONG_MAX ((long long)(~0ULL >> 1))
#define ULLONG_MAX (~0ULL)
#define SIZE_MAX (~(size_t)0)
#define PHYS_ADDR_MAX (~(phys_addr_t)0)
#define MAX_SCHEDULE_TIMEOUT LONG_MAX

struct list_head {
	struct list_head *next, *prev;
};
struct hlist_head {
	struct hlist_node *first;
};
struct hlist_node {
	struct hlist_node *next, **pprev;
};
struct callback_head {
	struct callback_head *next;
	void (*func)(struct callback_head *head);
} __attribute__((aligned(sizeof(void *))));
#define rcu_head callback_head

/* ------------------------------------------------------------- errno */
#define EPERM 1
#define ENOENT 2
#define ESRCH 3
#define EINTR 4
#define EIO 5
#define ENXIO 6
#define E2BIG 7
#define ENOEXEC 8
#define EBADF 9
#define ECHILD 10
#define EAGAIN 11
#define ENOMEM 12
#define EACCES 13
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define ENODEV 19
#define EINVAL 22
#define ENOSPC 28
#define ERANGE 34
#define EDEADLK 35
#define ENOSYS 38
#define ENODATA 61
#define ETIME 62
#define EMULTIHOP 72
#define EOVERFLOW 75
#define EALREADY 114
#define ETIMEDOUT 110
#define ECANCELED 125
#define ERESTARTSYS 512
#define EHWPOISON 133

#define MAX_ERRNO 4095
#define IS_ERR_VALUE(x) unlikely((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long error)
{
	return (void *)error;
}
static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}
static inline bool IS_ERR(const void *ptr)
{
	return IS_ERR_VALUE((unsigned long)ptr);
}
static inline bool IS_ERR_OR_NULL(const void *ptr)
{
	return !ptr || IS_ERR_VALUE((unsigned long)ptr);
}
static inline void *ERR_CAST(const void *ptr)
{
	return (void *)ptr;
}
static inline int PTR_ERR_OR_ZERO(const void *ptr)
{
	return IS_ERR(ptr) ? (int)PTR_ERR(ptr) : 0;
}

/* -------------------------------------------------------- kernel.h */
#define __cmp_op_min <
#define __cmp_op_max >
#define __cmp(op, x, y) ((x)__cmp_op_##op(y) ? (x) : (y))
#define __careful_cmp(op, x, y)                                                                    \
	({                                                                                         \
		typeof(x) __x = (x);                                                               \
		typeof(y) __y = (y);                                                               \
		__cmp(op, __x, __y);                                                               \
	})
#define min(x, y) __careful_cmp(min, x, y)
#define max(x, y) __careful_cmp(max, x, y)
#define umin(x, y) __careful_cmp(min, (x) + 0u + 0ul + 0ull, (y) + 0u + 0ul + 0ull)
#define umax(x, y) __careful_cmp(max, (x) + 0u + 0ul + 0ull, (y) + 0u + 0ul + 0ull)
#define min3(x, y, z) min((typeof(x))min(x, y), z)
#define max3(x, y, z) max((typeof(x))max(x, y), z)
#define min_t(type, x, y) __careful_cmp(min, (type)(x), (type)(y))
#define max_t(type, x, y) __careful_cmp(max, (type)(x), (type)(y))
#define clamp(val, lo, hi) min((typeof(val))max(val, lo), hi)
#define clamp_t(type, val, lo, hi) min_t(type, max_t(type, val, lo), hi)
#define clamp_val(val, lo, hi) clamp_t(typeof(val), val, lo, hi)
#define swap(a, b)                                                                                 \
	do {                                                                                       \
		typeof(a) __tmp = (a);                                                             \
		(a) = (b);                                                                         \
		(b) = __tmp;                                                                       \
	} while (0)
#define __ALIGN_KERNEL_MASK(x, mask) (((x) + (mask)) & ~(mask))
#define __ALIGN_KERNEL(x, a) __ALIGN_KERNEL_MASK(x, (typeof(x))(a)-1)
#define ALIGN(x, a) __ALIGN_KERNEL((x), (a))
#define ALIGN_DOWN(x, a) __ALIGN_KERNEL((x) - ((a)-1), (a))
#define PTR_ALIGN(p, a) ((typeof(p))ALIGN((unsigned long)(p), (a)))
#define IS_ALIGNED(x, a) (((x) & ((typeof(x))(a)-1)) == 0)
#define DIV_ROUND_UP(n, d) (((n) + (d)-1) / (d))
#define DIV_ROUND_UP_ULL(ll, d) DIV_ROUND_UP((unsigned long long)(ll), (d))
#define DIV_ROUND_CLOSEST(x, d) (((x) + ((d) / 2)) / (d))
#define round_up(x, y) ((((x)-1) | ((typeof(x))(y)-1)) + 1)
#define round_down(x, y) ((x) & ~((typeof(x))(y)-1))
#define roundup(x, y) ((((x) + ((y)-1)) / (y)) * (y))
#define rounddown(x, y) ((x) - ((x) % (y)))
#define upper_32_bits(n) ((u32)(((n) >> 16) >> 16))
#define lower_32_bits(n) ((u32)((n)&0xffffffff))
#define abs(x) __builtin_choose_expr(sizeof(x) == 8, __builtin_labs(x), __builtin_abs(x))
#define do_div(n, base)                                                                            \
	({                                                                                         \
		u32 __base = (base);                                                               \
		u32 __rem = (u32)((n) % __base);                                                   \
		(n) = (n) / __base;                                                                \
		__rem;                                                                             \
	})
static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}
static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}
static inline s64 div_s64(s64 dividend, s32 divisor)
{
	return dividend / divisor;
}
static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *rem)
{
	*rem = dividend % divisor;
	return dividend / divisor;
}
static inline u64 div64_u64_rem(u64 dividend, u64 divisor, u64 *rem)
{
	*rem = dividend % divisor;
	return dividend / divisor;
}
static inline u64 mul_u64_u32_div(u64 a, u32 mul, u32 divisor)
{
	return (u64)(((unsigned __int128)a * mul) / divisor);
}
#define container_of(ptr, type, member)                                                            \
	({                                                                                         \
		void *__mptr = (void *)(ptr);                                                      \
		((type *)(__mptr - offsetof(type, member)));                                       \
	})
#define container_of_const(ptr, type, member) container_of(ptr, type, member)

#define BIT(nr) (1UL << (nr))
#define BIT_ULL(nr) (1ULL << (nr))
#define BIT_MASK(nr) (1UL << ((nr) % BITS_PER_LONG))
#define BIT_WORD(nr) ((nr) / BITS_PER_LONG)
#define BITS_PER_BYTE 8
#define BITS_TO_LONGS(nr) DIV_ROUND_UP(nr, BITS_PER_BYTE * sizeof(long))
#define GENMASK(h, l) (((~0UL) - (1UL << (l)) + 1) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define GENMASK_ULL(h, l) (((~0ULL) - (1ULL << (l)) + 1) & (~0ULL >> (64 - 1 - (h))))
#define DECLARE_BITMAP(name, bits) unsigned long name[BITS_TO_LONGS(bits)]
#define _BITUL(x) (1UL << (x))
#define _AC(X, Y) X##Y
#define _UL(x) (_AC(x, UL))
#define _ULL(x) (_AC(x, ULL))
#define UL(x) (_UL(x))
#define ULL(x) (_ULL(x))

#define SZ_4K 0x00001000
#define SZ_64K 0x00010000
#define SZ_1M 0x00100000
#define SZ_2M 0x00200000
#define SZ_1G 0x40000000

/* ------------------------------------------------------------ bitops */
static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}
static inline int fls_long(unsigned long l)
{
	return fls64(l);
}
static inline unsigned long __fls(unsigned long word)
{
	return 63 - __builtin_clzl(word);
}
static inline unsigned long __ffs(unsigned long word)
{
	return __builtin_ctzl(word);
}
static inline int ffs(int x)
{
	return __builtin_ffs(x);
}
static inline unsigned long ffz(unsigned long word)
{
	return __builtin_ctzl(~word);
}
static inline unsigned int hweight32(unsigned int w)
{
	return __builtin_popcount(w);
}
static inline unsigned long hweight64(u64 w)
{
	return __builtin_popcountll(w);
}
static inline unsigned long hweight_long(unsigned long w)
{
	return __builtin_popcountl(w);
}
static inline int ilog2(unsigned long n)
{
	return (int)__fls(n);
}
#define order_base_2(n) ((n) > 1 ? ilog2((n)-1) + 1 : 0)
static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && ((n & (n - 1)) == 0);
}
static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return 1UL << fls_long(n - 1);
}
static inline unsigned long rounddown_pow_of_two(unsigned long n)
{
	return 1UL << (fls_long(n) - 1);
}

/* Atomic bit operations (x86: lock-prefixed RMW, as the kernel's). */
static inline void set_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_or(&addr[BIT_WORD(nr)], BIT_MASK(nr), __ATOMIC_SEQ_CST);
}
static inline void clear_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_and(&addr[BIT_WORD(nr)], ~BIT_MASK(nr), __ATOMIC_SEQ_CST);
}
static inline void clear_bit_unlock(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_and(&addr[BIT_WORD(nr)], ~BIT_MASK(nr), __ATOMIC_RELEASE);
}
static inline bool test_and_set_bit(long nr, volatile unsigned long *addr)
{
	return __atomic_fetch_or(&addr[BIT_WORD(nr)], BIT_MASK(nr), __ATOMIC_SEQ_CST) &
	       BIT_MASK(nr);
}
static inline bool test_and_clear_bit(long nr, volatile unsigned long *addr)
{
	return __atomic_fetch_and(&addr[BIT_WORD(nr)], ~BIT_MASK(nr), __ATOMIC_SEQ_CST) &
	       BIT_MASK(nr);
}
static inline bool test_and_set_bit_lock(long nr, volatile unsigned long *addr)
{
	return test_and_set_bit(nr, addr);
}
static inline void __set_bit(long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] |= BIT_MASK(nr);
}
static inline void __clear_bit(long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] &= ~BIT_MASK(nr);
}
static inline bool test_bit(long nr, const volatile unsigned long *addr)
{
	return 1UL & (addr[BIT_WORD(nr)] >> (nr & (BITS_PER_LONG - 1)));
}
#define test_bit_acquire(nr, addr) test_bit(nr, addr)

/* ------------------------------------------------------------ barriers */
#define mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define rmb() barrier()
#define wmb() barrier()
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb() barrier()
#define smp_wmb() barrier()
#define smp_mb__before_atomic() barrier()
#define smp_mb__after_atomic() barrier()
#define smp_store_mb(var, value)                                                                   \
	do {                                                                                       \
		WRITE_ONCE(var, value);                                                            \
		smp_mb();                                                                          \
	} while (0)
#define smp_load_acquire(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define smp_acquire__after_ctrl_dep() barrier()
#define dma_rmb() barrier()
#define dma_wmb() barrier()
#define cpu_relax() __builtin_ia32_pause()

/* ------------------------------------------------------------- atomics */
typedef struct {
	int counter;
} atomic_t;
typedef struct {
	s64 counter;
} atomic64_t;
typedef struct {
	long counter;
} atomic_long_t;
#define ATOMIC_INIT(i)                                                                             \
	{                                                                                          \
		(i)                                                                                \
	}
#define ATOMIC64_INIT(i)                                                                           \
	{                                                                                          \
		(i)                                                                                \
	}
#define ATOMIC_LONG_INIT(i)                                                                        \
	{                                                                                          \
		(i)                                                                                \
	}

#define KSHIM_ATOMIC_OPS(pfx, T, V)                                                                \
	static inline V pfx##_read(const T *v)                                                     \
	{                                                                                          \
		return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);                             \
	}                                                                                          \
	static inline V pfx##_read_acquire(const T *v)                                             \
	{                                                                                          \
		return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE);                             \
	}                                                                                          \
	static inline void pfx##_set(T *v, V i)                                                    \
	{                                                                                          \
		__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);                                \
	}                                                                                          \
	static inline void pfx##_set_release(T *v, V i)                                            \
	{                                                                                          \
		__atomic_store_n(&v->counter, i, __ATOMIC_RELEASE);                                \
	}                                                                                          \
	static inline void pfx##_add(V i, T *v)                                                    \
	{                                                                                          \
		__atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST);                              \
	}                                                                                          \
	static inline void pfx##_sub(V i, T *v)                                                    \
	{                                                                                          \
		__atomic_fetch_sub(&v->counter, i, __ATOMIC_SEQ_CST);                              \
	}                                                                                          \
	static inline void pfx##_inc(T *v)                                                         \
	{                                                                                          \
		pfx##_add(1, v);                                                                   \
	}                                                                                          \
	static inline void pfx##_dec(T *v)                                                         \
	{                                                                                          \
		pfx##_sub(1, v);                                                                   \
	}                                                                                          \
	static inline V pfx##_add_return(V i, T *v)                                                \
	{                                                                                          \
		return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST);                       \
	}                                                                                          \
	static inline V pfx##_sub_return(V i, T *v)                                                \
	{                                                                                          \
		return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST);                       \
	}                                                                                          \
	static inline V pfx##_fetch_add(V i, T *v)                                                 \
	{                                                                                          \
		return __atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST);                       \
	}                                                                                          \
	static inline V pfx##_fetch_add_relaxed(V i, T *v)                                         \
	{                                                                                          \
		return __atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED);                       \
	}                                                                                          \
	static inline V pfx##_fetch_sub_release(V i, T *v)                                         \
	{                                                                                          \
		return __atomic_fetch_sub(&v->counter, i, __ATOMIC_RELEASE);                       \
	}                                                                                          \
	static inline V pfx##_inc_return(T *v)                                                     \
	{                                                                                          \
		return pfx##_add_return(1, v);                                                     \
	}                                                                                          \
	static inline V pfx##_dec_return(T *v)                                                     \
	{                                                                                          \
		return pfx##_sub_return(1, v);                                                     \
	}                                                                                          \
	static inline bool pfx##_dec_and_test(T *v)                                                \
	{                                                                                          \
		return pfx##_sub_return(1, v) == 0;                                                \
	}                                                                                          \
	static inline bool pfx##_inc_and_test(T *v)                                                \
	{                                                                                          \
		return pfx##_add_return(1, v) == 0;                                                \
	}                                                                                          \
	static inline V pfx##_xchg(T *v, V n)                                                      \
	{                                                                                          \
		return __atomic_exchange_n(&v->counter, n, __ATOMIC_SEQ_CST);                      \
	}                                                                                          \
	static inline V pfx##_cmpxchg(T *v, V o, V n)                                              \
	{                                                                                          \
		__atomic_compare_exchange_n(&v->counter, &o, n, false, __ATOMIC_SEQ_CST,           \
					    __ATOMIC_SEQ_CST);                                     \
		return o;                                                                          \
	}                                                                                          \
	static inline bool pfx##_try_cmpxchg(T *v, V *o, V n)                                      \
	{                                                                                          \
		return __atomic_compare_exchange_n(&v->counter, o, n, false, __ATOMIC_SEQ_CST,     \
						   __ATOMIC_SEQ_CST);                              \
	}                                                                                          \
	static inline bool pfx##_try_cmpxchg_acquire(T *v, V *o, V n)                              \
	{                                                                                          \
		return __atomic_compare_exchange_n(&v->counter, o, n, false, __ATOMIC_ACQUIRE,     \
						   __ATOMIC_ACQUIRE);                              \
	}                                                                                          \
	static inline bool pfx##_try_cmpxchg_release(T *v, V *o, V n)                              \
	{                                                                                          \
		return __atomic_compare_exchange_n(&v->counter, o, n, false, __ATOMIC_RELEASE,     \
						   __ATOMIC_RELAXED);                              \
	}                                                                                          \
	static inline bool pfx##_add_unless(T *v, V a, V u)                                        \
	{                                                                                          \
		V c = pfx##_read(v);                                                               \
		do {                                                                               \
			if (c == u)                                                                \
				return false;                                                      \
		} while (!pfx##_try_cmpxchg(v, &c, c + a));                                        \
		return true;                                                                       \
	}                                                                                          \
	static inline bool pfx##_inc_not_zero(T *v)                                                \
	{                                                                                          \
		return pfx##_add_unless(v, 1, 0);                                                  \
	}                                                                                          \
	static inline void pfx##_or(V i, T *v)                                                     \
	{                                                                                          \
		__atomic_fetch_or(&v->counter, i, __ATOMIC_SEQ_CST);                               \
	}                                                                                          \
	static inline void pfx##_andnot(V i, T *v)                                                 \
	{                                                                                          \
		__atomic_fetch_and(&v->counter, ~i, __ATOMIC_SEQ_CST);                             \
	}
KSHIM_ATOMIC_OPS(atomic, atomic_t, int)
KSHIM_ATOMIC_OPS(atomic64, atomic64_t, s64)
KSHIM_ATOMIC_OPS(atomic_long, atomic_long_t, long)

#define xchg(ptr, v) __atomic_exchange_n(ptr, v, __ATOMIC_SEQ_CST)
#define cmpxchg(ptr, o, n)                                                                         \
	({                                                                                         \
		typeof(*(ptr)) __o = (o);                                                          \
		__atomic_compare_exchange_n(ptr, &__o, n, false, __ATOMIC_SEQ_CST,                 \
					    __ATOMIC_SEQ_CST);                                     \
		__o;                                                                               \
	})
#define try_cmpxchg(ptr, po, n)                                                                    \
	__atomic_compare_exchange_n(ptr, po, n, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define cmpxchg_relaxed cmpxchg

/* ------------------------------------------------------------ refcount */
typedef struct refcount_struct {
	atomic_t refs;
} refcount_t;
#define REFCOUNT_INIT(n)                                                                           \
	{                                                                                          \
		.refs = ATOMIC_INIT(n)                                                             \
	}
void kshim_refcount_warn(refcount_t *r, const char *what);
static inline void refcount_set(refcount_t *r, int n)
{
	atomic_set(&r->refs, n);
}
static inline unsigned int refcount_read(const refcount_t *r)
{
	return atomic_read(&r->refs);
}
/* As the kernel's: one locked add, a saturation check on the old value. */
static inline void refcount_inc(refcount_t *r)
{
	int old = atomic_fetch_add_relaxed(1, &r->refs);

	if (unlikely(old <= 0 || old + 1 <= 0))
		kshim_refcount_warn(r, "inc");
}
static inline void refcount_add(int i, refcount_t *r)
{
	int old = atomic_fetch_add_relaxed(i, &r->refs);

	if (unlikely(old <= 0 || old + i <= 0))
		kshim_refcount_warn(r, "add");
}
static inline bool refcount_inc_not_zero(refcount_t *r)
{
	int old = atomic_read(&r->refs);

	do {
		if (!old)
			break;
	} while (!atomic_try_cmpxchg(&r->refs, &old, old + 1));
	return old;
}
static inline bool refcount_sub_and_test(int i, refcount_t *r)
{
	int old = atomic_fetch_sub_release(i, &r->refs);

	if (old == i) {
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		return true;
	}
	if (unlikely(old < 0 || old - i < 0))
		kshim_refcount_warn(r, "sub");
	return false;
}
static inline bool refcount_dec_and_test(refcount_t *r)
{
	return refcount_sub_and_test(1, r);
}
static inline void refcount_dec(refcount_t *r)
{
	if (unlikely(atomic_fetch_sub_release(1, &r->refs) <= 1))
		kshim_refcount_warn(r, "dec");
}

/* ----------------------------------------------------------- printk */
int kshim_printk(const char *fmt, ...) __printf(1, 2);
#define KERN_EMERG ""
#define KERN_ALERT ""
#define KERN_CRIT ""
#define KERN_ERR ""
#define KERN_WARNING ""
#define KERN_NOTICE ""
#define KERN_INFO ""
#define KERN_DEBUG ""
#define KERN_CONT ""
#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif
#define printk(fmt, ...) kshim_printk(fmt, ##__VA_ARGS__)
#define pr_emerg(fmt, ...) kshim_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...) kshim_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...) kshim_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...) kshim_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...) kshim_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_cont(fmt, ...) kshim_printk(fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)                                                                         \
	do {                                                                                       \
		if (0)                                                                             \
			kshim_printk(pr_fmt(fmt), ##__VA_ARGS__);                                  \
	} while (0)
#define pr_err_once pr_err
#define pr_warn_once pr_warn
#define pr_info_once pr_info
#define pr_warn_ratelimited pr_warn
#define pr_err_ratelimited pr_err
#define no_printk(fmt, ...)                                                                        \
	do {                                                                                       \
		if (0)                                                                             \
			kshim_printk(fmt, ##__VA_ARGS__);                                          \
	} while (0)

/* --------------------------------------------------------------- bug */
void kshim_warn(const char *file, int line, const char *cond);
void kshim_bug(const char *file, int line) __noreturn;
#define WARN_ON(condition)                                                                         \
	({                                                                                         \
		int __ret_warn_on = !!(condition);                                                 \
		if (unlikely(__ret_warn_on))                                                       \
			kshim_warn(__FILE__, __LINE__, #condition);                                \
		unlikely(__ret_warn_on);                                                           \
	})
#define WARN_ON_ONCE(condition) WARN_ON(condition)
#define WARN(condition, format...)                                                                 \
	({                                                                                         \
		int __ret_warn_on = !!(condition);                                                 \
		if (unlikely(__ret_warn_on)) {                                                     \
			kshim_printk(format);                                                      \
			kshim_warn(__FILE__, __LINE__, #condition);                                \
		}                                                                                  \
		unlikely(__ret_warn_on);                                                           \
	})
#define WARN_ONCE(condition, format...) WARN(condition, format)
#define BUG() kshim_bug(__FILE__, __LINE__)
#define BUG_ON(condition)                                                                          \
	do {                                                                                       \
		if (unlikely(condition))                                                           \
			BUG();                                                                     \
	} while (0)
#define VM_BUG_ON(c)                                                                               \
	do {                                                                                       \
	} while (0)
#define VM_WARN_ON(c)                                                                              \
	do {                                                                                       \
	} while (0)
#define VM_WARN_ON_ONCE(c)                                                                         \
	do {                                                                                       \
	} while (0)
#define CHECK_DATA_CORRUPTION(condition, fmt, ...) (unlikely(condition))

/* ------------------------------------------------------- lockdep etc */
struct lock_class_key {
	int dummy;
};
struct lockdep_map {
	int dummy;
};
#define lockdep_assert_held(l)                                                                     \
	do {                                                                                       \
		(void)(l);                                                                         \
	} while (0)
#define lockdep_assert_held_once(l)                                                                \
	do {                                                                                       \
		(void)(l);                                                                         \
	} while (0)
#define lockdep_assert_not_held(l)                                                                 \
	do {                                                                                       \
		(void)(l);                                                                         \
	} while (0)
#define lockdep_assert_held_write(l)                                                               \
	do {                                                                                       \
		(void)(l);                                                                         \
	} while (0)
#define lockdep_assert_none_held_once()                                                            \
	do {                                                                                       \
	} while (0)
#define lockdep_is_held(l) 1
#define lockdep_set_class(l, k)                                                                    \
	do {                                                                                       \
	} while (0)
#define lockdep_init_map(...)                                                                      \
	do {                                                                                       \
	} while (0)
#define lock_map_acquire(l)                                                                        \
	do {                                                                                       \
	} while (0)
#define lock_map_release(l)                                                                        \
	do {                                                                                       \
	} while (0)
#define lock_acquire(...)                                                                          \
	do {                                                                                       \
	} while (0)
#define lock_release(...)                                                                          \
	do {                                                                                       \
	} while (0)
#define might_lock(l)                                                                              \
	do {                                                                                       \
	} while (0)
#define might_sleep()                                                                              \
	do {                                                                                       \
	} while (0)
#define might_fault()                                                                              \
	do {                                                                                       \
	} while (0)
#define might_sleep_if(c)                                                                          \
	do {                                                                                       \
	} while (0)
#define cant_sleep()                                                                               \
	do {                                                                                       \
	} while (0)
#define might_resched()                                                                            \
	do {                                                                                       \
	} while (0)
#define cond_resched() 0
#define in_atomic() 0
#define in_interrupt() 0
#define in_task() 1
#define irqs_disabled() 0
#define preempt_disable() barrier()
#define preempt_enable() barrier()
#define migrate_disable() barrier()
#define migrate_enable() barrier()
#define local_irq_save(f)                                                                          \
	do {                                                                                       \
		(f) = 0;                                                                           \
		barrier();                                                                         \
	} while (0)
#define local_irq_restore(f)                                                                       \
	do {                                                                                       \
		(void)(f);                                                                         \
		barrier();                                                                         \
	} while (0)
#define local_irq_disable() barrier()
#define local_irq_enable() barrier()
#define fs_reclaim_acquire(g)                                                                      \
	do {                                                                                       \
	} while (0)
#define fs_reclaim_release(g)                                                                      \
	do {                                                                                       \
	} while (0)
#define __lockdep_no_validate__ dummy
#define LOCK_EVENT(...)
#define DEFINE_LOCKDEP_MAP(...)

/* -------------------------------------------------------- spinlocks */
/*
 * A test-and-set lock on a byte, as the kernel's uncontended queued
 * spinlock costs one locked RMW to take and a release store to drop. The
 * irq-save variants do not save or mask interrupts (there are none).
 */
typedef struct spinlock {
	unsigned char locked;
} spinlock_t;
typedef spinlock_t raw_spinlock_t;
typedef struct {
	int cnt;
} rwlock_t;
#define __SPIN_LOCK_UNLOCKED(x)                                                                    \
	{                                                                                          \
		0                                                                                  \
	}
#define DEFINE_SPINLOCK(x) spinlock_t x = __SPIN_LOCK_UNLOCKED(x)
#define __RW_LOCK_UNLOCKED(x)                                                                      \
	{                                                                                          \
		0                                                                                  \
	}
#define DEFINE_RWLOCK(x) rwlock_t x = __RW_LOCK_UNLOCKED(x)
static inline void spin_lock_init(spinlock_t *l)
{
	l->locked = 0;
}
#define raw_spin_lock_init spin_lock_init
static inline void spin_lock(spinlock_t *l)
{
	while (unlikely(__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			cpu_relax();
}
static inline int spin_trylock(spinlock_t *l)
{
	return !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
}
static inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}
static inline int spin_is_locked(spinlock_t *l)
{
	return __atomic_load_n(&l->locked, __ATOMIC_RELAXED);
}
#define spin_lock_irqsave(l, f)                                                                    \
	do {                                                                                       \
		(f) = 0;                                                                           \
		spin_lock(l);                                                                      \
	} while (0)
#define spin_unlock_irqrestore(l, f)                                                               \
	do {                                                                                       \
		(void)(f);                                                                         \
		spin_unlock(l);                                                                    \
	} while (0)
#define spin_lock_irq(l) spin_lock(l)
#define spin_unlock_irq(l) spin_unlock(l)
#define spin_lock_bh(l) spin_lock(l)
#define spin_unlock_bh(l) spin_unlock(l)
#define spin_lock_nested(l, s) spin_lock(l)
#define raw_spin_lock spin_lock
#define raw_spin_unlock spin_unlock
#define raw_spin_lock_irqsave spin_lock_irqsave
#define raw_spin_unlock_irqrestore spin_unlock_irqrestore
#define assert_spin_locked(l)                                                                      \
	do {                                                                                       \
		(void)(l);                                                                         \
	} while (0)

/* Reader-writer lock: readers count up, a writer takes -1. */
static inline void rwlock_init(rwlock_t *l)
{
	l->cnt = 0;
}
static inline void read_lock(rwlock_t *l)
{
	int c = __atomic_load_n(&l->cnt, __ATOMIC_RELAXED);

	for (;;) {
		if (c >= 0 && __atomic_compare_exchange_n(&l->cnt, &c, c + 1, false,
							  __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
		if (c < 0) {
			cpu_relax();
			c = __atomic_load_n(&l->cnt, __ATOMIC_RELAXED);
		}
	}
}
static inline void read_unlock(rwlock_t *l)
{
	__atomic_fetch_sub(&l->cnt, 1, __ATOMIC_RELEASE);
}
static inline void write_lock(rwlock_t *l)
{
	int z = 0;

	while (!__atomic_compare_exchange_n(&l->cnt, &z, -1, false, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		z = 0;
		cpu_relax();
	}
}
static inline void write_unlock(rwlock_t *l)
{
	__atomic_store_n(&l->cnt, 0, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ tasks */
struct task_struct {
	int pid;
	long state;
	void *futex_word;
	char comm[16];
};
extern __thread struct task_struct kshim_current;
#define current (&kshim_current)
#define get_current() (&kshim_current)
#define TASK_RUNNING 0x0000
#define TASK_INTERRUPTIBLE 0x0001
#define TASK_UNINTERRUPTIBLE 0x0002
#define TASK_NORMAL (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)
#define __set_current_state(s) (current->state = (s))
#define set_current_state(s) smp_store_mb(current->state, (s))
static inline int signal_pending(struct task_struct *p)
{
	(void)p;
	return 0;
}
static inline int signal_pending_state(unsigned int s, struct task_struct *p)
{
	(void)s;
	(void)p;
	return 0;
}
static inline int fatal_signal_pending(struct task_struct *p)
{
	(void)p;
	return 0;
}
long schedule_timeout(long timeout);
void schedule(void);
int wake_up_state(struct task_struct *p, unsigned int state);
int wake_up_process(struct task_struct *p);
#define task_pid_nr(t) ((t)->pid)
#define numa_node_id() 0
#define NUMA_NO_NODE (-1)
#define num_online_cpus() 2
#define smp_processor_id() 0
#define raw_smp_processor_id() 0

/* --------------------------------------------------------------- RCU */
/*
 * Readers cost a compiler barrier (the kernel's preemptible RCU touches a
 * per-task nesting counter); grace periods are immediate: call_rcu() and
 * kfree_rcu() run their callback at once. Correct in the benchmark because
 * every reader is the thread that frees.
 */
#define rcu_read_lock() barrier()
#define rcu_read_unlock() barrier()
#define rcu_read_lock_held() 1
#define rcu_read_lock_sched_held() 1
#define rcu_read_lock_any_held() 1
#define RCU_LOCKDEP_WARN(c, s)                                                                     \
	do {                                                                                       \
	} while (0)
#define rcu_dereference(p) READ_ONCE(p)
#define rcu_dereference_raw(p) READ_ONCE(p)
#define rcu_dereference_check(p, c) READ_ONCE(p)
#define rcu_dereference_protected(p, c) (p)
#define rcu_dereference_raw_check(p) READ_ONCE(p)
#define rcu_access_pointer(p) READ_ONCE(p)
#define rcu_assign_pointer(p, v) smp_store_release(&(p), (v))
#define RCU_INIT_POINTER(p, v) WRITE_ONCE(p, v)
#define RCU_INITIALIZER(v) (v)
#define rcu_replace_pointer(rcu_ptr, ptr, c)                                                       \
	({                                                                                         \
		typeof(ptr) __tmp = rcu_dereference_protected((rcu_ptr), (c));                     \
		rcu_assign_pointer((rcu_ptr), (ptr));                                              \
		__tmp;                                                                             \
	})
#define rcu_pointer_handoff(p) (p)
#define unrcu_pointer(p) (p)
typedef void (*rcu_callback_t)(struct rcu_head *head);
static inline void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	func(head);
}
void synchronize_rcu(void);
void rcu_barrier(void);
void kfree(const void *objp);
#define kfree_rcu(ptr, rhf) kfree(ptr)
#define kvfree_rcu(ptr, ...) kvfree(ptr)

/* ----------------------------------------------------------- seqcount */
typedef struct seqcount {
	unsigned sequence;
} seqcount_t;
#define seqcount_init(s) ((s)->sequence = 0)
static inline unsigned read_seqcount_begin(const seqcount_t *s)
{
	unsigned v;

	while ((v = READ_ONCE(s->sequence)) & 1)
		cpu_relax();
	smp_rmb();
	return v;
}
static inline int read_seqcount_retry(const seqcount_t *s, unsigned start)
{
	smp_rmb();
	return READ_ONCE(s->sequence) != start;
}
static inline void write_seqcount_begin(seqcount_t *s)
{
	s->sequence++;
	smp_wmb();
}
static inline void write_seqcount_end(seqcount_t *s)
{
	smp_wmb();
	s->sequence++;
}

/* --------------------------------------------------------- mutexes */
/*
 * The kernel's mutex costs one acquire cmpxchg of the owner word to take
 * and one release cmpxchg to drop when uncontended; so does this one.
 * Contention (never in the benchmark's single thread) yields the CPU until
 * the owner drops it: no waiter list, no optimistic spinning.
 */
struct mutex {
	atomic_long_t owner;
};
#define __MUTEX_INITIALIZER(name)                                                                  \
	{                                                                                          \
		.owner = ATOMIC_LONG_INIT(0)                                                       \
	}
#define DEFINE_MUTEX(m) struct mutex m = __MUTEX_INITIALIZER(m)
static inline void mutex_init(struct mutex *m)
{
	atomic_long_set(&m->owner, 0);
}
#define __mutex_init(m, n, k) mutex_init(m)
static inline void mutex_destroy(struct mutex *m)
{
	(void)m;
}
void kshim_mutex_lock_slow(struct mutex *m);
static inline bool kshim_mutex_trylock_fast(struct mutex *m)
{
	long zero = 0;

	return atomic_long_try_cmpxchg_acquire(&m->owner, &zero, (long)current);
}
static inline void mutex_lock(struct mutex *m)
{
	might_sleep();
	if (!kshim_mutex_trylock_fast(m))
		kshim_mutex_lock_slow(m);
}
#define mutex_lock_nested(m, s) mutex_lock(m)
static inline int mutex_lock_interruptible(struct mutex *m)
{
	mutex_lock(m);
	return 0;
}
static inline int mutex_lock_killable(struct mutex *m)
{
	mutex_lock(m);
	return 0;
}
static inline int mutex_trylock(struct mutex *m)
{
	return kshim_mutex_trylock_fast(m);
}
static inline void mutex_unlock(struct mutex *m)
{
	long cur = (long)current;

	if (!atomic_long_try_cmpxchg_release(&m->owner, &cur, 0))
		atomic_long_set_release(&m->owner, 0);
}
static inline bool mutex_is_locked(struct mutex *m)
{
	return atomic_long_read(&m->owner) != 0;
}

/* Reader-writer semaphore (only ttm_pool's shrinker lock): an rwlock. */
struct rw_semaphore {
	rwlock_t l;
};
#define DECLARE_RWSEM(n) struct rw_semaphore n = {__RW_LOCK_UNLOCKED(n)}
#define init_rwsem(s) rwlock_init(&(s)->l)
#define down_read(s) read_lock(&(s)->l)
#define up_read(s) read_unlock(&(s)->l)
#define down_write(s) write_lock(&(s)->l)
#define up_write(s) write_unlock(&(s)->l)

/* ------------------------------------------------------------- time */
#define NSEC_PER_USEC 1000L
#define NSEC_PER_MSEC 1000000L
#define NSEC_PER_SEC 1000000000L
#define USEC_PER_SEC 1000000L
#define MSEC_PER_SEC 1000L
ktime_t ktime_get(void);
static inline ktime_t ktime_get_raw(void)
{
	return ktime_get();
}
static inline ktime_t ktime_get_mono_fast_ns(void)
{
	return ktime_get();
}
static inline ktime_t ktime_get_real(void)
{
	return ktime_get();
}
static inline s64 ktime_to_ns(ktime_t kt)
{
	return kt;
}
static inline s64 ktime_to_us(ktime_t kt)
{
	return kt / 1000;
}
static inline s64 ktime_to_ms(ktime_t kt)
{
	return kt / 1000000;
}
static inline ktime_t ns_to_ktime(u64 ns)
{
	return ns;
}
static inline ktime_t ktime_add(ktime_t a, ktime_t b)
{
	return a + b;
}
static inline ktime_t ktime_sub(ktime_t a, ktime_t b)
{
	return a - b;
}
static inline ktime_t ktime_add_ns(ktime_t a, u64 b)
{
	return a + b;
}
static inline ktime_t ktime_add_us(ktime_t a, u64 b)
{
	return a + b * 1000;
}
static inline ktime_t ktime_add_ms(ktime_t a, u64 b)
{
	return a + b * 1000000;
}
static inline int ktime_compare(ktime_t a, ktime_t b)
{
	return a < b ? -1 : a > b;
}
static inline bool ktime_after(ktime_t a, ktime_t b)
{
	return a > b;
}
static inline bool ktime_before(ktime_t a, ktime_t b)
{
	return a < b;
}
static inline s64 ktime_us_delta(ktime_t a, ktime_t b)
{
	return (a - b) / 1000;
}
static inline s64 ktime_ms_delta(ktime_t a, ktime_t b)
{
	return (a - b) / 1000000;
}
static inline ktime_t ktime_set(s64 secs, unsigned long nsecs)
{
	return secs * NSEC_PER_SEC + nsecs;
}
#define KTIME_MAX ((s64) ~((u64)1 << 63))
#define ktime_compare_safe ktime_compare
extern unsigned long volatile jiffies;
static inline unsigned long msecs_to_jiffies(unsigned int m)
{
	return m / (1000 / HZ);
}
static inline unsigned long usecs_to_jiffies(unsigned int u)
{
	return u / (1000000 / HZ);
}
static inline unsigned int jiffies_to_msecs(unsigned long j)
{
	return j * (1000 / HZ);
}
static inline u64 nsecs_to_jiffies64(u64 n)
{
	return n / (NSEC_PER_SEC / HZ);
}
static inline unsigned long nsecs_to_jiffies(u64 n)
{
	return n / (NSEC_PER_SEC / HZ);
}
#define time_after(a, b) ((long)((b) - (a)) < 0)
#define time_before(a, b) time_after(b, a)
#define time_after_eq(a, b) ((long)((a) - (b)) >= 0)
struct timespec64 {
	s64 tv_sec;
	long tv_nsec;
};
static inline struct timespec64 ktime_to_timespec64(ktime_t kt)
{
	struct timespec64 ts = {kt / NSEC_PER_SEC, kt % NSEC_PER_SEC};

	return ts;
}

/* ------------------------------------------------------- wait queues */
struct wait_queue_entry;
typedef int (*wait_queue_func_t)(struct wait_queue_entry *wq_entry, unsigned mode, int flags,
				 void *key);
struct wait_queue_entry {
	unsigned int flags;
	void *private;
	wait_queue_func_t func;
	struct list_head entry;
};
typedef struct wait_queue_entry wait_queue_entry_t;
struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
};
typedef struct wait_queue_head wait_queue_head_t;
void init_waitqueue_head(struct wait_queue_head *wq);
void wake_up_all(struct wait_queue_head *wq);
#define wake_up(wq) wake_up_all(wq)
#define wake_up_interruptible(wq) wake_up_all(wq)
#define wake_up_var(v)                                                                             \
	do {                                                                                       \
	} while (0)
#define wait_var_event(v, c)                                                                       \
	do {                                                                                       \
	} while (!(c))

struct completion {
	unsigned int done;
};
static inline void init_completion(struct completion *c)
{
	c->done = 0;
}
static inline void complete(struct completion *c)
{
	c->done = 1;
}
static inline void complete_all(struct completion *c)
{
	c->done = 1;
}
static inline bool completion_done(struct completion *c)
{
	return c->done;
}

/* ----------------------------------------------------------- workqueue */
/*
 * No worker threads: queued work runs at flush_work(), flush_workqueue(),
 * destroy_workqueue() or cancel_*_sync() time, in the caller's thread.
 */
struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);
struct work_struct {
	atomic_long_t data;
	struct list_head entry;
	work_func_t func;
};
struct timer_list {
	unsigned long expires;
	void (*function)(struct timer_list *);
};
struct delayed_work {
	struct work_struct work;
	struct timer_list timer;
	struct workqueue_struct *wq;
};
struct workqueue_struct;
struct irq_work {
	struct work_struct w;
	void (*func)(struct irq_work *);
};
void kshim_init_work(struct work_struct *w, work_func_t fn);
#define INIT_WORK(w, fn) kshim_init_work((w), (fn))
#define INIT_DELAYED_WORK(dw, fn) kshim_init_work(&(dw)->work, (fn))
#define __WORK_INITIALIZER(n, f)                                                                   \
	{                                                                                          \
		.data = ATOMIC_LONG_INIT(0), .entry = {&(n).entry, &(n).entry}, .func = (f)        \
	}
#define DECLARE_WORK(n, f) struct work_struct n = __WORK_INITIALIZER(n, f)
struct workqueue_struct *alloc_workqueue(const char *fmt, unsigned int flags, int max_active, ...);
#define alloc_ordered_workqueue(fmt, flags, args...) alloc_workqueue(fmt, flags, 1, ##args)
void destroy_workqueue(struct workqueue_struct *wq);
bool queue_work(struct workqueue_struct *wq, struct work_struct *work);
bool queue_work_node(int node, struct workqueue_struct *wq, struct work_struct *work);
bool queue_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw, unsigned long delay);
bool mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw, unsigned long delay);
bool schedule_work(struct work_struct *work);
bool schedule_delayed_work(struct delayed_work *dw, unsigned long delay);
void flush_workqueue(struct workqueue_struct *wq);
#define drain_workqueue flush_workqueue
bool flush_work(struct work_struct *work);
bool flush_delayed_work(struct delayed_work *dw);
bool cancel_work_sync(struct work_struct *work);
bool cancel_delayed_work_sync(struct delayed_work *dw);
bool cancel_delayed_work(struct delayed_work *dw);
bool work_pending(struct work_struct *work);
#define delayed_work_pending(dw) work_pending(&(dw)->work)
extern struct workqueue_struct *system_wq;
extern struct workqueue_struct *system_unbound_wq;
#define WQ_UNBOUND (1 << 1)
#define WQ_FREEZABLE (1 << 2)
#define WQ_MEM_RECLAIM (1 << 3)
#define WQ_HIGHPRI (1 << 4)
#define WQ_CPU_INTENSIVE (1 << 5)
#define WQ_SYSFS (1 << 6)
#define WQ_MAX_ACTIVE 512
static inline struct delayed_work *to_delayed_work(struct work_struct *work)
{
	return container_of(work, struct delayed_work, work);
}
static inline void init_irq_work(struct irq_work *w, void (*func)(struct irq_work *))
{
	w->func = func;
}
bool irq_work_queue(struct irq_work *w);
void irq_work_sync(struct irq_work *w);
#define IRQ_WORK_INIT(f)                                                                           \
	{                                                                                          \
		.func = (f)                                                                        \
	}

/* ------------------------------------------------------------- memory */
#define ___GFP_DMA 0x01u
#define ___GFP_HIGHMEM 0x02u
#define ___GFP_DMA32 0x04u
#define ___GFP_MOVABLE 0x08u
#define ___GFP_RECLAIMABLE 0x10u
#define ___GFP_HIGH 0x20u
#define ___GFP_IO 0x40u
#define ___GFP_FS 0x80u
#define ___GFP_ZERO 0x100u
#define ___GFP_DIRECT_RECLAIM 0x400u
#define ___GFP_KSWAPD_RECLAIM 0x800u
#define ___GFP_NOWARN 0x2000u
#define ___GFP_RETRY_MAYFAIL 0x4000u
#define ___GFP_NOFAIL 0x8000u
#define ___GFP_NORETRY 0x10000u
#define ___GFP_COMP 0x40000u
#define ___GFP_NOMEMALLOC 0x80000u
#define ___GFP_ACCOUNT 0x400000u
#define ___GFP_THISNODE 0x200000u
#define __GFP_THISNODE ((gfp_t)___GFP_THISNODE)
#define __GFP_DMA ((gfp_t)___GFP_DMA)
#define __GFP_HIGHMEM ((gfp_t)___GFP_HIGHMEM)
#define __GFP_DMA32 ((gfp_t)___GFP_DMA32)
#define __GFP_MOVABLE ((gfp_t)___GFP_MOVABLE)
#define __GFP_RECLAIMABLE ((gfp_t)___GFP_RECLAIMABLE)
#define __GFP_HIGH ((gfp_t)___GFP_HIGH)
#define __GFP_IO ((gfp_t)___GFP_IO)
#define __GFP_FS ((gfp_t)___GFP_FS)
#define __GFP_ZERO ((gfp_t)___GFP_ZERO)
#define __GFP_DIRECT_RECLAIM ((gfp_t)___GFP_DIRECT_RECLAIM)
#define __GFP_KSWAPD_RECLAIM ((gfp_t)___GFP_KSWAPD_RECLAIM)
#define __GFP_RECLAIM ((gfp_t)(___GFP_DIRECT_RECLAIM | ___GFP_KSWAPD_RECLAIM))
#define __GFP_NOWARN ((gfp_t)___GFP_NOWARN)
#define __GFP_RETRY_MAYFAIL ((gfp_t)___GFP_RETRY_MAYFAIL)
#define __GFP_NOFAIL ((gfp_t)___GFP_NOFAIL)
#define __GFP_NORETRY ((gfp_t)___GFP_NORETRY)
#define __GFP_COMP ((gfp_t)___GFP_COMP)
#define __GFP_NOMEMALLOC ((gfp_t)___GFP_NOMEMALLOC)
#define __GFP_ACCOUNT ((gfp_t)___GFP_ACCOUNT)
#define GFP_ATOMIC (__GFP_HIGH | __GFP_KSWAPD_RECLAIM)
#define GFP_KERNEL (__GFP_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_NOWAIT (__GFP_KSWAPD_RECLAIM)
#define GFP_NOIO (__GFP_RECLAIM)
#define GFP_NOFS (__GFP_RECLAIM | __GFP_IO)
#define GFP_USER (__GFP_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_DMA32 __GFP_DMA32
#define GFP_HIGHUSER (GFP_USER | __GFP_HIGHMEM)
#define GFP_HIGHUSER_MOVABLE (GFP_HIGHUSER | __GFP_MOVABLE)
#define GFP_TRANSHUGE_LIGHT                                                                        \
	((GFP_HIGHUSER_MOVABLE | __GFP_COMP | __GFP_NOMEMALLOC | __GFP_NOWARN) & ~__GFP_RECLAIM)
#define GFP_KERNEL_ACCOUNT (GFP_KERNEL | __GFP_ACCOUNT)
static inline bool gfpflags_allow_blocking(const gfp_t gfp_flags)
{
	return !!(gfp_flags & __GFP_DIRECT_RECLAIM);
}

void *kmalloc(size_t size, gfp_t flags) __malloc;
void *kzalloc(size_t size, gfp_t flags) __malloc;
void *krealloc(const void *p, size_t new_size, gfp_t flags);
void *kmalloc_array(size_t n, size_t size, gfp_t flags) __malloc;
void *kcalloc(size_t n, size_t size, gfp_t flags) __malloc;
void *kvmalloc(size_t size, gfp_t flags) __malloc;
void *kvzalloc(size_t size, gfp_t flags) __malloc;
void *kvmalloc_array(size_t n, size_t size, gfp_t flags) __malloc;
void *kvcalloc(size_t n, size_t size, gfp_t flags) __malloc;
void *vmalloc(unsigned long size) __malloc;
void *vzalloc(unsigned long size) __malloc;
void vfree(const void *addr);
void kvfree(const void *addr);
size_t ksize(const void *objp);
size_t kmalloc_size_roundup(size_t size);
void *krealloc_array(void *p, size_t new_n, size_t new_size, gfp_t flags);
char *kstrdup(const char *s, gfp_t gfp);
char *kasprintf(gfp_t gfp, const char *fmt, ...) __printf(2, 3);
void *kmemdup(const void *src, size_t len, gfp_t gfp);
#define kmalloc_node(s, f, n) kmalloc(s, f)
#define kzalloc_node(s, f, n) kzalloc(s, f)
#define kvmalloc_node(s, f, n) kvmalloc(s, f)
static inline bool is_vmalloc_addr(const void *x)
{
	(void)x;
	return false;
}
struct kmem_cache {
	size_t size;
	const char *name;
};
struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align,
				     unsigned long flags, void (*ctor)(void *));
void kmem_cache_destroy(struct kmem_cache *s);
void *kmem_cache_alloc(struct kmem_cache *s, gfp_t flags) __malloc;
void *kmem_cache_zalloc(struct kmem_cache *s, gfp_t flags) __malloc;
void kmem_cache_free(struct kmem_cache *s, void *objp);
#define KMEM_CACHE(__struct, __flags)                                                              \
	kmem_cache_create(#__struct, sizeof(struct __struct), __alignof__(struct __struct),        \
			  (__flags), NULL)
#define SLAB_HWCACHE_ALIGN 0x2000UL
#define SLAB_TYPESAFE_BY_RCU 0x80000UL
#define SLAB_RECLAIM_ACCOUNT 0x20000UL
#define ZERO_SIZE_PTR ((void *)16)

#define memset(s, c, n) __builtin_memset((s), (c), (n))
#define memcpy(d, s, n) __builtin_memcpy((d), (s), (n))
#define memmove(d, s, n) __builtin_memmove((d), (s), (n))
#define memcmp(a, b, n) __builtin_memcmp((a), (b), (n))
#define strlen(s) __builtin_strlen(s)
#define strcmp(a, b) __builtin_strcmp((a), (b))
#define strncmp(a, b, n) __builtin_strncmp((a), (b), (n))
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int scnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
size_t strscpy(char *dst, const char *src, size_t count);
#define memset_io(a, c, n) __builtin_memset((void *)(a), (c), (n))
#define memcpy_toio(d, s, n) __builtin_memcpy((void *)(d), (s), (n))
#define memcpy_fromio(d, s, n) __builtin_memcpy((d), (const void *)(s), (n))

/* Pages: see kshim.c for the two page-allocator models. */
#define PAGE_SHIFT 12
#define PAGE_SIZE (_AC(1, UL) << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define PAGE_ALIGN(addr) ALIGN(addr, PAGE_SIZE)
#define PAGE_ALIGNED(addr) IS_ALIGNED((unsigned long)(addr), PAGE_SIZE)
#define PFN_UP(x) (((x) + PAGE_SIZE - 1) >> PAGE_SHIFT)
#define PFN_DOWN(x) ((x) >> PAGE_SHIFT)
#define PFN_PHYS(x) ((phys_addr_t)(x) << PAGE_SHIFT)
#define PHYS_PFN(x) ((unsigned long)((x) >> PAGE_SHIFT))
#define MAX_PAGE_ORDER 10
#define NR_PAGE_ORDERS (MAX_PAGE_ORDER + 1)
#define MAX_ORDER MAX_PAGE_ORDER
#define HPAGE_PMD_ORDER 9
struct address_space;
struct page {
	unsigned long flags;
	unsigned long private;
	struct list_head lru;
	void *virtual;
	atomic_t _refcount;
	void *kshim_block;
};
struct folio {
	struct page page;
};
#define page_private(page) ((page)->private)
#define set_page_private(page, v) ((page)->private = (v))
static inline void *page_address(const struct page *page)
{
	return page->virtual;
}
#define lowmem_page_address page_address
unsigned long kshim_page_to_pfn(const struct page *page);
#define page_to_pfn(p) kshim_page_to_pfn(p)
struct page *pfn_to_page(unsigned long pfn);
#define page_to_phys(p) PFN_PHYS(page_to_pfn(p))
static inline int page_count(const struct page *p)
{
	return atomic_read(&p->_refcount);
}
static inline void get_page(struct page *p)
{
	atomic_inc(&p->_refcount);
}
void put_page(struct page *p);
#define PageHighMem(p) 0
static inline void copy_highpage(struct page *to, struct page *from)
{
	__builtin_memcpy(page_address(to), page_address(from), PAGE_SIZE);
}
static inline void set_page_dirty(struct page *p)
{
	(void)p;
}
static inline void mark_page_accessed(struct page *p)
{
	(void)p;
}
static inline gfp_t mapping_gfp_mask(struct address_space *m)
{
	(void)m;
	return GFP_HIGHUSER_MOVABLE;
}
static inline bool want_init_on_free(void)
{
	return false;
}
struct page *virt_to_page(const void *addr);
struct page *alloc_pages(gfp_t gfp, unsigned int order);
#define alloc_pages_node(nid, gfp, order) alloc_pages((gfp), (order))
#define alloc_page(gfp) alloc_pages((gfp), 0)
void __free_pages(struct page *page, unsigned int order);
#define __free_page(p) __free_pages((p), 0)
unsigned long __get_free_pages(gfp_t gfp, unsigned int order);
#define __get_free_page(gfp) __get_free_pages((gfp), 0)
void free_pages(unsigned long addr, unsigned int order);
#define free_page(a) free_pages((a), 0)
#define clear_page(p) __builtin_memset((p), 0, PAGE_SIZE)
static inline void clear_highpage(struct page *p)
{
	clear_page(page_address(p));
}
static inline int set_pages_wb(struct page *page, int numpages)
{
	(void)page;
	(void)numpages;
	return 0;
}
static inline int set_pages_array_wc(struct page **pages, int n)
{
	(void)pages;
	(void)n;
	return 0;
}
static inline int set_pages_array_uc(struct page **pages, int n)
{
	(void)pages;
	(void)n;
	return 0;
}
static inline int set_pages_array_wb(struct page **pages, int n)
{
	(void)pages;
	(void)n;
	return 0;
}
static inline int set_memory_wb(unsigned long a, int n)
{
	(void)a;
	(void)n;
	return 0;
}
struct sysinfo {
	unsigned long totalram;
	unsigned long freeram;
	unsigned long sharedram;
	unsigned long bufferram;
	unsigned long totalswap;
	unsigned long freeswap;
	unsigned long totalhigh;
	unsigned long freehigh;
	unsigned int mem_unit;
};
void si_meminfo(struct sysinfo *val);
extern unsigned long totalram_pages_value;
static inline unsigned long totalram_pages(void)
{
	return totalram_pages_value;
}
#define PAGE_KERNEL __pgprot(0x163)
#define PAGE_KERNEL_IO PAGE_KERNEL
#define pgprot_writecombine(p) (p)
#define pgprot_noncached(p) (p)
#define pgprot_decrypted(p) (p)
#define pgprot_encrypted(p) (p)
#define VM_MAP 0x4
void *vmap(struct page **pages, unsigned int count, unsigned long flags, pgprot_t prot);
void vunmap(const void *addr);
static inline void *kmap(struct page *p)
{
	return page_address(p);
}
static inline void kunmap(struct page *p)
{
	(void)p;
}
static inline void *kmap_local_page(struct page *p)
{
	return page_address(p);
}
static inline void *kmap_local_page_prot(struct page *p, pgprot_t prot)
{
	(void)prot;
	return page_address(p);
}
static inline void kunmap_local(const void *a)
{
	(void)a;
}
static inline void *kmap_atomic(struct page *p)
{
	return page_address(p);
}
static inline void kunmap_atomic(void *a)
{
	(void)a;
}
void *ioremap(resource_size_t off, unsigned long size);
#define ioremap_wc ioremap
#define ioremap_cache ioremap
void iounmap(volatile void *addr);
void *memremap(resource_size_t off, size_t size, unsigned long flags);
void memunmap(void *addr);
#define MEMREMAP_WB 1
#define MEMREMAP_WT 2
#define MEMREMAP_WC 4
struct io_mapping;
void *io_mapping_map_local_wc(struct io_mapping *m, unsigned long off);
void io_mapping_unmap_local(void *vaddr);
#define readb(a) (*(volatile u8 *)(a))
#define readl(a) (*(volatile u32 *)(a))
#define readq(a) (*(volatile u64 *)(a))
#define writeb(v, a) (*(volatile u8 *)(a) = (v))
#define writel(v, a) (*(volatile u32 *)(a) = (v))
#define writeq(v, a) (*(volatile u64 *)(a) = (v))
#define readw(a) (*(volatile u16 *)(a))
#define writew(v, a) (*(volatile u16 *)(a) = (v))

/* Things the TTM sources name but the benchmark never reaches. */
struct file {
	struct address_space *f_mapping;
};
struct inode;
struct device;
struct vm_area_struct;
struct vm_fault;
struct mm_struct;
struct seq_file;
struct dentry;
struct module;
struct scatterlist {
	unsigned long page_link;
	unsigned int offset;
	unsigned int length;
	dma_addr_t dma_address;
	unsigned int dma_length;
};
#define sg_dma_address(sg) ((sg)->dma_address)
#define sg_dma_len(sg) ((sg)->dma_length)
struct scatterlist *sg_next(struct scatterlist *sg);
struct sg_table {
	struct scatterlist *sgl;
	unsigned int nents;
	unsigned int orig_nents;
};

struct dma_buf;
struct dma_buf_attachment;
struct shrinker;
struct shrink_control {
	gfp_t gfp_mask;
	int nid;
	unsigned long nr_to_scan;
	unsigned long nr_scanned;
};
struct shrinker {
	unsigned long (*count_objects)(struct shrinker *, struct shrink_control *sc);
	unsigned long (*scan_objects)(struct shrinker *, struct shrink_control *sc);
	long batch;
	int seeks;
	unsigned flags;
	void *private_data;
};
#define SHRINK_STOP (~0UL - 1)
#define SHRINK_EMPTY (~0UL - 1)
#define DEFAULT_SEEKS 2
struct shrinker *shrinker_alloc(unsigned int flags, const char *fmt, ...);
void shrinker_register(struct shrinker *shrinker);
void shrinker_free(struct shrinker *shrinker);
#define THIS_MODULE ((struct module *)0)
#define EXPORT_SYMBOL(s)
#define EXPORT_SYMBOL_GPL(s)
#define EXPORT_SYMBOL_NS(s, ns)
#define EXPORT_SYMBOL_NS_GPL(s, ns)
#define EXPORT_SYMBOL_FOR_TESTS_ONLY(s)
#define EXPORT_SYMBOL_IF_KUNIT(s)
#define EXPORT_TRACEPOINT_SYMBOL(s)
#define EXPORT_TRACEPOINT_SYMBOL_GPL(s)
#define MODULE_LICENSE(s)
#define MODULE_AUTHOR(s)
#define MODULE_DESCRIPTION(s)
#define MODULE_PARM_DESC(p, d)
#define MODULE_IMPORT_NS(ns)
#define module_param(n, t, p)
#define module_param_named(n, v, t, p)
#define module_init(f)
#define module_exit(f)
#define subsys_initcall(f)
#define late_initcall(f)
#define core_initcall(f)
#define arch_initcall(f)
#define fs_initcall(f)
#define device_initcall(f)

struct debugfs_blob_wrapper;
struct file_operations {
	struct module *owner;
};
static inline struct dentry *debugfs_create_dir(const char *n, struct dentry *p)
{
	(void)n;
	(void)p;
	return (struct dentry *)0;
}
static inline struct dentry *debugfs_create_file(const char *n, umode_t m, struct dentry *p,
						 void *d, const struct file_operations *f)
{
	(void)n;
	(void)m;
	(void)p;
	(void)d;
	(void)f;
	return (struct dentry *)0;
}
static inline void debugfs_create_atomic_t(const char *n, umode_t m, struct dentry *p, atomic_t *v)
{
	(void)n;
	(void)m;
	(void)p;
	(void)v;
}
static inline void debugfs_remove(struct dentry *d)
{
	(void)d;
}
#define debugfs_remove_recursive debugfs_remove
#define DEFINE_SHOW_ATTRIBUTE(name)                                                                \
	static const struct file_operations name##_fops __maybe_unused = {.owner = THIS_MODULE}
#define DEFINE_SHOW_STORE_ATTRIBUTE DEFINE_SHOW_ATTRIBUTE
void seq_printf(struct seq_file *m, const char *fmt, ...) __printf(2, 3);
void seq_puts(struct seq_file *m, const char *s);
#define seq_putc(m, c)                                                                             \
	do {                                                                                       \
		(void)(m);                                                                         \
	} while (0)

/* Stack depot: CONFIG_DRM_DEBUG_MM is off. */
typedef u32 depot_stack_handle_t;

/* shmem/swap: reached only by swapout, which the benchmark never does. */
struct file *shmem_file_setup(const char *name, loff_t size, unsigned long flags);
struct page *shmem_read_mapping_page_gfp(struct address_space *m, pgoff_t i, gfp_t g);
void fput(struct file *f);
unsigned long kshim_nop(void);

/* cc_platform */
enum cc_attr {
	CC_ATTR_MEM_ENCRYPT,
	CC_ATTR_HOST_MEM_ENCRYPT,
	CC_ATTR_GUEST_MEM_ENCRYPT,
};
static inline bool cc_platform_has(enum cc_attr attr)
{
	(void)attr;
	return false;
}

/* DMA API: the pools the benchmark makes have no device. */
enum dma_data_direction {
	DMA_BIDIRECTIONAL = 0,
	DMA_TO_DEVICE = 1,
	DMA_FROM_DEVICE = 2,
	DMA_NONE = 3,
};
#define DMA_ATTR_FORCE_CONTIGUOUS (1UL << 4)
#define DMA_ATTR_NO_KERNEL_MAPPING (1UL << 4)
#define DMA_ATTR_NO_WARN (1UL << 8)
#define DMA_MAPPING_ERROR (~(dma_addr_t)0)
dma_addr_t dma_map_page(struct device *dev, struct page *page, size_t off, size_t size,
			enum dma_data_direction dir);
void dma_unmap_page(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir);
static inline int dma_mapping_error(struct device *dev, dma_addr_t a)
{
	(void)dev;
	return a == DMA_MAPPING_ERROR;
}
void *dma_alloc_attrs(struct device *dev, size_t size, dma_addr_t *dma, gfp_t gfp,
		      unsigned long attrs);
void dma_free_attrs(struct device *dev, size_t size, void *cpu, dma_addr_t dma,
		    unsigned long attrs);
#define dma_alloc_coherent(d, s, h, g) dma_alloc_attrs(d, s, h, g, 0)
int dev_to_node(struct device *dev);

/* mmap bits the headers name. */
#define VM_READ 0x1
#define VM_WRITE 0x2
#define VM_SHARED 0x8
#define VM_MAYWRITE 0x20
#define VM_PFNMAP 0x400
#define VM_IO 0x4000
#define VM_DONTEXPAND 0x40000
#define VM_DONTDUMP 0x4000000
#define VM_MIXEDMAP 0x10000000
#define VM_FAULT_OOM 0x0001
#define VM_FAULT_SIGBUS 0x0002
#define VM_FAULT_NOPAGE 0x0100
#define VM_FAULT_RETRY 0x0400
void unmap_mapping_range(struct address_space *m, loff_t const holebegin, loff_t const holelen,
			 int even_cows);

/* x86 CPU data (ttm_prot_from_caching() looks at the family). */
struct cpuinfo_x86 {
	u8 x86;
};
static const struct cpuinfo_x86 boot_cpu_data = {.x86 = 6};
#define _PAGE_PCD 0x010UL
#define _PAGE_PWT 0x008UL
#define _PAGE_PAT 0x080UL
#define _PAGE_CACHE_MASK (_PAGE_PCD | _PAGE_PWT | _PAGE_PAT)

/* uapi bits */
#define O_RDWR 02
#define O_CLOEXEC 02000000

/* ----------------------------------------------------- llist (needs atomics) */
#define smp_cond_load_relaxed(ptr, cond_expr)                                                      \
	({                                                                                         \
		typeof(ptr) __PTR = (ptr);                                                         \
		__unqual_scalar_typeof(*ptr) VAL;                                                  \
		for (;;) {                                                                         \
			VAL = READ_ONCE(*__PTR);                                                   \
			if (cond_expr)                                                             \
				break;                                                             \
			cpu_relax();                                                               \
		}                                                                                  \
		(typeof(*ptr))VAL;                                                                 \
	})

/* ------------------------------------------------------- ww_mutex */
struct ww_class {
	atomic_long_t stamp;
	const char *acquire_name;
	const char *mutex_name;
	unsigned int is_wait_die;
};
struct ww_acquire_ctx {
	struct task_struct *task;
	unsigned long stamp;
	unsigned int acquired;
	unsigned short wounded;
	unsigned short is_wait_die;
};
struct ww_mutex {
	struct mutex base;
	struct ww_acquire_ctx *ctx;
};
#define __WW_CLASS_INITIALIZER(ww_class, _is_wait_die)                                             \
	{                                                                                          \
		.stamp = ATOMIC_LONG_INIT(0), .acquire_name = #ww_class "_acquire",                \
		.mutex_name = #ww_class "_mutex", .is_wait_die = _is_wait_die                      \
	}
#define DEFINE_WD_CLASS(classname) struct ww_class classname = __WW_CLASS_INITIALIZER(classname, 1)
#define DEFINE_WW_CLASS(classname) struct ww_class classname = __WW_CLASS_INITIALIZER(classname, 0)
static inline void ww_mutex_init(struct ww_mutex *lock, struct ww_class *ww_class)
{
	(void)ww_class;
	mutex_init(&lock->base);
	lock->ctx = (struct ww_acquire_ctx *)0;
}
static inline void ww_acquire_init(struct ww_acquire_ctx *ctx, struct ww_class *ww_class)
{
	ctx->task = current;
	ctx->stamp = atomic_long_inc_return(&ww_class->stamp);
	ctx->acquired = 0;
	ctx->wounded = 0;
	ctx->is_wait_die = ww_class->is_wait_die;
}
static inline void ww_acquire_done(struct ww_acquire_ctx *ctx)
{
	(void)ctx;
}
static inline void ww_acquire_fini(struct ww_acquire_ctx *ctx)
{
	(void)ctx;
}
/* The kernel's out-of-line ww_mutex_lock(): a fast trylock, the context
 * recorded; -EALREADY and wait-die only on the slow path. */
int ww_mutex_lock(struct ww_mutex *lock, struct ww_acquire_ctx *ctx);
int ww_mutex_lock_interruptible(struct ww_mutex *lock, struct ww_acquire_ctx *ctx);
static inline void ww_mutex_lock_slow(struct ww_mutex *lock, struct ww_acquire_ctx *ctx)
{
	(void)ww_mutex_lock(lock, ctx);
}
static inline int ww_mutex_lock_slow_interruptible(struct ww_mutex *lock,
						   struct ww_acquire_ctx *ctx)
{
	return ww_mutex_lock_interruptible(lock, ctx);
}
void ww_mutex_unlock(struct ww_mutex *lock);
int ww_mutex_trylock(struct ww_mutex *lock, struct ww_acquire_ctx *ctx);
static inline void ww_mutex_destroy(struct ww_mutex *lock)
{
	(void)lock;
}
static inline bool ww_mutex_is_locked(struct ww_mutex *lock)
{
	return mutex_is_locked(&lock->base);
}

typedef struct seqcount_ww_mutex {
	seqcount_t seqcount;
} seqcount_ww_mutex_t;

/* Poison values (list.h deletes entries with them). */
#define POISON_POINTER_DELTA 0xdead000000000000UL
#define LIST_POISON1 ((void *)0x100 + POISON_POINTER_DELTA)
#define LIST_POISON2 ((void *)0x122 + POISON_POINTER_DELTA)
#define TIMER_ENTRY_STATIC ((void *)0x300 + POISON_POINTER_DELTA)

/* ---------------------------------------------------------- misc */
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < 1; (cpu)++)
#define for_each_online_cpu(cpu) for_each_possible_cpu(cpu)
#define DEFINE_PER_CPU(type, name) type name
#define this_cpu_ptr(p) (p)
#define per_cpu_ptr(p, cpu) (p)
#define get_cpu() 0
#define put_cpu()                                                                                  \
	do {                                                                                       \
	} while (0)
#define nr_cpu_ids 1
#define U32_C(x) x##U
#define array_size(a, b) ((size_t)(a) * (size_t)(b))
#define struct_size(p, member, count) (sizeof(*(p)) + sizeof(*(p)->member) * (count))
#define flex_array_size(p, member, count) (sizeof(*(p)->member) * (count))
static inline bool check_add_overflow_u64(u64 a, u64 b, u64 *d)
{
	return __builtin_add_overflow(a, b, d);
}
#define check_add_overflow(a, b, d) __builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d) __builtin_mul_overflow(a, b, d)
#define check_sub_overflow(a, b, d) __builtin_sub_overflow(a, b, d)
#define overflows_type(n, T) ((typeof(T))(n) != (n))
#define __counted_by_le(m)
#define __cleanup(f) __attribute__((__cleanup__(f)))
#define DEFINE_FREE(...)
#define DEFINE_GUARD(...)
#define no_free_ptr(p) (p)
#define __free(x)

#endif /* KSHIM_H */

// SPDX-License-Identifier: MIT
/*
 * sim_vm.c - the device's per-process GTTs (ppGTT): 4-level page tables of
 * 512 64-bit entries each, translating 48-bit addresses over 4 KiB pages.
 *
 * The tables live in the device's own memory (as they would in the memory
 * the kernel allocates for them, which the driver never reads back) and are
 * written only through sim_vm_insert()/sim_vm_clear(). A directory entry
 * holds the host address of the next-level table with SIM_PTE_PRESENT; a
 * leaf entry has the GGTT PTE format. Directory tables are allocated on the
 * first insert below them and freed only with the VM, so the command
 * streamer walks them without a lock while the driver writes other entries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_priv.h"

#define VM_ENTRIES 512u
#define VM_LEVEL_SHIFT 9
#define VM_MAX_SLOTS 65536u

static unsigned int vm_index(uint64_t page, unsigned int level)
{
	return (unsigned int)(page >> (VM_LEVEL_SHIFT * level)) & (VM_ENTRIES - 1);
}

static void vm_free_table(uint64_t *table, unsigned int level)
{
	if (!table)
		return;
	if (level) {
		for (unsigned int i = 0; i < VM_ENTRIES; i++) {
			uint64_t e = table[i];

			if (e & SIM_PTE_PRESENT)
				vm_free_table((uint64_t *)(uintptr_t)(e & SIM_PTE_ADDR_MASK),
					      level - 1);
		}
	}
	free(table);
}

static uint64_t *vm_alloc_table(void)
{
	uint64_t *t;

	if (fault_should_fail(&sim_fault_vm_table, SIM_PAGE_SIZE))
		return NULL;
	t = aligned_alloc(SIM_PAGE_SIZE, SIM_PAGE_SIZE);
	if (t)
		memset(t, 0, SIM_PAGE_SIZE);
	return t;
}

void sim_vm_put(struct sim_vm *vm)
{
	if (!vm || atomic_fetch_sub(&vm->refs, 1) != 1)
		return;
	vm_free_table(vm->pml4, SIM_VM_LEVELS - 1);
	pthread_mutex_destroy(&vm->lock);
	free(vm);
}

static struct sim_vm *vm_slot_locked(struct sim_gpu *gpu, uint64_t handle)
{
	uint64_t slot;

	if (!handle || (handle & (SIM_PAGE_SIZE - 1)))
		return NULL;
	slot = (handle >> SIM_PAGE_SHIFT) - 1;
	if (slot >= gpu->nr_vms || !gpu->vms[slot] || gpu->vms[slot]->handle != handle)
		return NULL;
	return gpu->vms[slot];
}

struct sim_vm *sim_vm_lookup(struct sim_gpu *gpu, uint64_t handle)
{
	struct sim_vm *vm;

	pthread_mutex_lock(&gpu->lock);
	vm = vm_slot_locked(gpu, handle);
	if (vm)
		atomic_fetch_add(&vm->refs, 1);
	pthread_mutex_unlock(&gpu->lock);
	return vm;
}

int sim_vm_create(struct sim_gpu *gpu, uint64_t *handle)
{
	struct sim_vm *vm;
	unsigned int slot;

	if (!gpu || !handle)
		return -EINVAL;
	vm = fault_should_fail(&sim_fault_vm_table, sizeof(*vm)) ? NULL : calloc(1, sizeof(*vm));
	if (!vm)
		return -ENOMEM;
	vm->pml4 = vm_alloc_table();
	if (!vm->pml4) {
		free(vm);
		return -ENOMEM;
	}
	atomic_init(&vm->refs, 1);
	pthread_mutex_init(&vm->lock, NULL);

	pthread_mutex_lock(&gpu->lock);
	for (slot = 0; slot < gpu->nr_vms; slot++)
		if (!gpu->vms[slot])
			break;
	if (slot == gpu->nr_vms) {
		unsigned int n = gpu->nr_vms ? 2 * gpu->nr_vms : 16;
		struct sim_vm **v = NULL;

		if (n <= VM_MAX_SLOTS)
			v = fault_should_fail(&sim_fault_vm_table, n * sizeof(*v))
				? NULL
				: realloc(gpu->vms, n * sizeof(*v));
		if (!v) {
			pthread_mutex_unlock(&gpu->lock);
			sim_vm_put(vm);
			return -ENOMEM;
		}
		memset(v + gpu->nr_vms, 0, (n - gpu->nr_vms) * sizeof(*v));
		gpu->vms = v;
		gpu->nr_vms = n;
	}
	vm->handle = (uint64_t)(slot + 1) << SIM_PAGE_SHIFT;
	gpu->vms[slot] = vm;
	pthread_mutex_unlock(&gpu->lock);
	*handle = vm->handle;
	return 0;
}

int sim_vm_destroy(struct sim_gpu *gpu, uint64_t handle)
{
	struct sim_vm *vm;

	if (!gpu)
		return -EINVAL;
	pthread_mutex_lock(&gpu->lock);
	vm = vm_slot_locked(gpu, handle);
	if (vm)
		gpu->vms[(handle >> SIM_PAGE_SHIFT) - 1] = NULL;
	pthread_mutex_unlock(&gpu->lock);
	if (!vm)
		return -ENOENT;
	/* An engine still executing in it holds a reference until its command ends. */
	sim_vm_put(vm);
	return 0;
}

void sim_vm_destroy_all(struct sim_gpu *gpu)
{
	for (unsigned int i = 0; i < gpu->nr_vms; i++)
		sim_vm_put(gpu->vms[i]);
	free(gpu->vms);
	gpu->vms = NULL;
	gpu->nr_vms = 0;
}

/* The leaf entry of @page, allocating directories on the way when @alloc. */
static uint64_t *vm_leaf(struct sim_vm *vm, uint64_t page, bool alloc)
{
	uint64_t *table = vm->pml4;

	for (unsigned int level = SIM_VM_LEVELS - 1; level; level--) {
		uint64_t *slot = &table[vm_index(page, level)];
		uint64_t e = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

		if (!(e & SIM_PTE_PRESENT)) {
			uint64_t *next;

			if (!alloc)
				return NULL;
			next = vm_alloc_table();
			if (!next)
				return NULL;
			e = (uint64_t)(uintptr_t)next | SIM_PTE_PRESENT;
			/* Readers see the table zeroed before they see it linked. */
			__atomic_store_n(slot, e, __ATOMIC_RELEASE);
			atomic_fetch_add(&vm->tables, 1);
		}
		table = (uint64_t *)(uintptr_t)(e & SIM_PTE_ADDR_MASK);
	}
	return &table[vm_index(page, 0)];
}

static bool vm_range_ok(uint64_t first, uint64_t count)
{
	const uint64_t pages = SIM_VM_SIZE >> SIM_PAGE_SHIFT;

	return first <= pages && count <= pages - first;
}

int sim_vm_insert(struct sim_gpu *gpu, uint64_t handle, uint64_t first, const uint64_t *ptes,
		  uint64_t count)
{
	struct sim_vm *vm;
	int ret = 0;

	if (!vm_range_ok(first, count) || (count && !ptes))
		return -EINVAL;
	vm = sim_vm_lookup(gpu, handle);
	if (!vm)
		return -ENOENT;
	/* Writers serialise on the VM so two never link a directory at the same slot. */
	pthread_mutex_lock(&vm->lock);
	for (uint64_t i = 0; i < count; i++) {
		uint64_t *leaf = vm_leaf(vm, first + i, true);

		if (!leaf) {
			ret = -ENOMEM;
			break;
		}
		__atomic_store_n(leaf, ptes[i], __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&vm->lock);
	sim_vm_put(vm);
	return ret;
}

int sim_vm_clear(struct sim_gpu *gpu, uint64_t handle, uint64_t first, uint64_t count)
{
	struct sim_vm *vm;

	if (!vm_range_ok(first, count))
		return -EINVAL;
	vm = sim_vm_lookup(gpu, handle);
	if (!vm)
		return -ENOENT;
	pthread_mutex_lock(&vm->lock);
	for (uint64_t i = 0; i < count; i++) {
		uint64_t *leaf = vm_leaf(vm, first + i, false);

		if (leaf) {
			__atomic_store_n(leaf, 0, __ATOMIC_RELEASE);
		} else {
			/* Nothing mapped below this directory: skip to its end. */
			uint64_t skip = VM_ENTRIES - ((first + i) & (VM_ENTRIES - 1));

			i += skip - 1;
		}
	}
	pthread_mutex_unlock(&vm->lock);
	sim_vm_put(vm);
	return 0;
}

uint64_t sim_vm_read_pte(struct sim_gpu *gpu, uint64_t handle, uint64_t index)
{
	struct sim_vm *vm;
	uint64_t *leaf, pte = 0;

	if (!vm_range_ok(index, 1))
		return 0;
	vm = sim_vm_lookup(gpu, handle);
	if (!vm)
		return 0;
	leaf = vm_leaf(vm, index, false);
	if (leaf)
		pte = __atomic_load_n(leaf, __ATOMIC_ACQUIRE);
	sim_vm_put(vm);
	return pte;
}

uint64_t sim_vm_table_pages(struct sim_gpu *gpu, uint64_t handle)
{
	struct sim_vm *vm = sim_vm_lookup(gpu, handle);
	uint64_t n;

	if (!vm)
		return 0;
	n = 1 + atomic_load(&vm->tables);
	sim_vm_put(vm);
	return n;
}

static uint8_t *vm_page(struct sim_gpu *gpu, struct sim_vm *vm, uint64_t page)
{
	uint64_t *leaf;

	if (page >= (SIM_VM_SIZE >> SIM_PAGE_SHIFT))
		return NULL;
	leaf = vm_leaf(vm, page, false);
	return leaf ? sim_pte_ptr(gpu, __atomic_load_n(leaf, __ATOMIC_ACQUIRE)) : NULL;
}

void *sim_vm_resolve(struct sim_gpu *gpu, struct sim_vm *vm, uint64_t addr, size_t want,
		     size_t *run)
{
	uint64_t index = addr >> SIM_PAGE_SHIFT;
	uint8_t *page = vm_page(gpu, vm, index), *first = page;
	size_t got;

	if (!page)
		return NULL;
	got = SIM_PAGE_SIZE - (addr & (SIM_PAGE_SIZE - 1));
	while (got < want) {
		uint8_t *next = vm_page(gpu, vm, index + 1);

		if (next != page + SIM_PAGE_SIZE)
			break;
		page = next;
		index++;
		got += SIM_PAGE_SIZE;
	}
	*run = got < want ? got : want;
	return first + (addr & (SIM_PAGE_SIZE - 1));
}

// SPDX-License-Identifier: MIT
/* The core's per-file state; see drmcore/drm_file.h. */
#include <drmcore/drm_file.h>
#include <drmcore/drm_syncobj.h>

void drm_file_init(struct drm_file *file)
{
	pthread_mutex_init(&file->syncobj_table_lock, NULL);
	drm_idr_init(&file->syncobj_idr);
	drm_prime_file_init(&file->prime);
}

void drm_file_fini(struct drm_file *file)
{
	drm_syncobj_release(file);
	drm_prime_file_fini(&file->prime);
	pthread_mutex_destroy(&file->syncobj_table_lock);
}

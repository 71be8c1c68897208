#include <stdatomic.h>
#include <pthread.h>
#include <genmc.h>
atomic_int x;
void *t0(void *a) { atomic_store_explicit(&x, 1, memory_order_relaxed); return 0; }
void *t1(void *a) { int r0 = atomic_load_explicit(&x, memory_order_relaxed); __VERIFIER_assume(r0 == 1); return 0; }
int main() { pthread_t a, b; pthread_create(&a, 0, t0, 0); pthread_create(&b, 0, t1, 0); pthread_join(a, 0); pthread_join(b, 0); return 0; }

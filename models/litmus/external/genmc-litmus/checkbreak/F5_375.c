#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>
#include <genmc.h>

atomic_int x;
int out_0_r0;
int out_0_r1;
int out_0_r2;
int out_0_e2;
int out_1_r0;
int out_1_r1;
int out_1_r2;
int out_1_e2;
void *thr0(void *arg) {
  int r0 = 0;
  int r1 = 0;
  int r2 = 0;
  int e2 = 0;
  r0 = atomic_load_explicit(&x, memory_order_relaxed);
  atomic_thread_fence(memory_order_seq_cst);
  __VERIFIER_assume(r0 == 0);
  r1 = atomic_load_explicit(&x, memory_order_acquire);
  if (r1 == 0) {
    e2 = 0;
    r2 = atomic_compare_exchange_weak_explicit(&x, &e2, 1, memory_order_seq_cst, memory_order_relaxed);
  }
  out_0_r0 = r0;
  out_0_r1 = r1;
  out_0_r2 = r2;
  out_0_e2 = e2;
  return NULL;
}
void *thr1(void *arg) {
  int r0 = 0;
  int r1 = 0;
  int r2 = 0;
  int e2 = 0;
  r0 = atomic_exchange_explicit(&x, 2, memory_order_release);
  if (r0 == 0) {
    r1 = atomic_load_explicit(&x, memory_order_seq_cst);
  }
  if (r1 == 0) {
    e2 = 0;
    r2 = atomic_compare_exchange_strong_explicit(&x, &e2, 3, memory_order_release, memory_order_relaxed);
  }
  out_1_r0 = r0;
  out_1_r1 = r1;
  out_1_r2 = r2;
  out_1_e2 = e2;
  return NULL;
}
void *thr2(void *arg) {
  atomic_store_explicit(&x, 4, memory_order_relaxed);
  return NULL;
}
int main() {
  pthread_t t[3];
  pthread_create(&t[0], NULL, thr0, NULL);
  pthread_create(&t[1], NULL, thr1, NULL);
  pthread_create(&t[2], NULL, thr2, NULL);
  pthread_join(t[0], NULL);
  pthread_join(t[1], NULL);
  pthread_join(t[2], NULL);
  int f_0_r0 = out_0_r0;
  int f_0_r1 = out_0_r1;
  int f_0_r2 = out_0_r2;
  int f_0_e2 = out_0_e2;
  int f_1_r0 = out_1_r0;
  int f_1_r1 = out_1_r1;
  int f_1_r2 = out_1_r2;
  int f_1_e2 = out_1_e2;
  int g_x = atomic_load_explicit(&x, memory_order_relaxed);
  return 0;
}

#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>
#include <genmc.h>

atomic_int y;
int d;
int out_0_a;
int out_0_b;
int out_1_h;
void *thr0(void *arg) {
  int a = 0;
  int b = 0;
  a = atomic_load_explicit(&y, memory_order_relaxed);
  atomic_thread_fence(memory_order_acquire);
  __VERIFIER_assume(a == 2);
  b = d;
  out_0_a = a;
  out_0_b = b;
  return NULL;
}
void *thr1(void *arg) {
  int h = 0;
  d = 1;
  h = atomic_fetch_add_explicit(&y, 1, memory_order_relaxed);
  atomic_store_explicit(&y, 2, memory_order_release);
  out_1_h = h;
  return NULL;
}
int main() {
  pthread_t t[2];
  pthread_create(&t[0], NULL, thr0, NULL);
  pthread_create(&t[1], NULL, thr1, NULL);
  pthread_join(t[0], NULL);
  pthread_join(t[1], NULL);
  int f_0_a = out_0_a;
  int f_0_b = out_0_b;
  int f_1_h = out_1_h;
  int g_y = atomic_load_explicit(&y, memory_order_relaxed);
  int g_d = d;
  return 0;
}

#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>
#include <genmc.h>

atomic_int y;
int d;
int out_0_a;
int out_0_b;
int out_1_o;
int out_2_h;
int out_2_he;
void *thr0(void *arg) {
  int a = 0;
  int b = 0;
  a = atomic_load_explicit(&y, memory_order_relaxed);
  atomic_thread_fence(memory_order_seq_cst);
  __VERIFIER_assume(a == 1);
  b = d;
  out_0_a = a;
  out_0_b = b;
  return NULL;
}
void *thr1(void *arg) {
  int o = 0;
  o = atomic_exchange_explicit(&y, 10, memory_order_relaxed);
  out_1_o = o;
  return NULL;
}
void *thr2(void *arg) {
  int h = 0;
  int he = 0;
  d = 1;
  atomic_thread_fence(memory_order_release);
  he = 0;
  h = atomic_compare_exchange_strong_explicit(&y, &he, 1, memory_order_acq_rel, memory_order_relaxed);
  atomic_store_explicit(&y, 2, memory_order_relaxed);
  out_2_h = h;
  out_2_he = he;
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
  int f_0_a = out_0_a;
  int f_0_b = out_0_b;
  int f_1_o = out_1_o;
  int f_2_h = out_2_h;
  int f_2_he = out_2_he;
  int g_y = atomic_load_explicit(&y, memory_order_relaxed);
  int g_d = d;
  return 0;
}

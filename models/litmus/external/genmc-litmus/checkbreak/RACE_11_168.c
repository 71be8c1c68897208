#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>
#include <genmc.h>

atomic_int y;
int d;
int out_0_o;
int out_1_a;
int out_1_b;
int out_2_c;
void *thr0(void *arg) {
  int o = 0;
  o = atomic_exchange_explicit(&y, 10, memory_order_release);
  out_0_o = o;
  return NULL;
}
void *thr1(void *arg) {
  int a = 0;
  int b = 0;
  a = atomic_load_explicit(&y, memory_order_relaxed);
  atomic_thread_fence(memory_order_seq_cst);
  __VERIFIER_assume(a == 2);
  b = d;
  out_1_a = a;
  out_1_b = b;
  return NULL;
}
void *thr2(void *arg) {
  int c = 0;
  d = 1;
  atomic_thread_fence(memory_order_release);
  atomic_store_explicit(&y, 1, memory_order_relaxed);
  c = atomic_exchange_explicit(&y, 2, memory_order_relaxed);
  out_2_c = c;
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
  int f_0_o = out_0_o;
  int f_1_a = out_1_a;
  int f_1_b = out_1_b;
  int f_2_c = out_2_c;
  int g_y = atomic_load_explicit(&y, memory_order_relaxed);
  int g_d = d;
  return 0;
}

#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>
#include <genmc.h>

atomic_int x;
atomic_int y;
int out_0_r0;
int out_0_e0;
int out_1_r1;
int out_1_r2;
int out_2_r0;
void *thr0(void *arg) {
  int r0 = 0;
  int e0 = 0;
  atomic_store_explicit(&y, 1, memory_order_seq_cst);
  e0 = 2;
  r0 = atomic_compare_exchange_strong_explicit(&x, &e0, 1, memory_order_seq_cst, memory_order_relaxed);
  out_0_r0 = r0;
  out_0_e0 = e0;
  return NULL;
}
void *thr1(void *arg) {
  int r1 = 0;
  int r2 = 0;
  r1 = atomic_load_explicit(&x, memory_order_seq_cst);
  r2 = atomic_load_explicit(&y, memory_order_seq_cst);
  out_1_r1 = r1;
  out_1_r2 = r2;
  return NULL;
}
void *thr2(void *arg) {
  int r0 = 0;
  r0 = atomic_fetch_add_explicit(&x, 1, memory_order_seq_cst);
  out_2_r0 = r0;
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
  int f_0_e0 = out_0_e0;
  int f_1_r1 = out_1_r1;
  int f_1_r2 = out_1_r2;
  int f_2_r0 = out_2_r0;
  int g_x = atomic_load_explicit(&x, memory_order_relaxed);
  int g_y = atomic_load_explicit(&y, memory_order_relaxed);
  return 0;
}

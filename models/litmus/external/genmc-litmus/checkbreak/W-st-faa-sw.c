#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>
#include <genmc.h>

atomic_int x;
atomic_int y;
int out_0_r0;
int out_2_r0;
int out_2_r2;
int out_3_r0;
void *thr0(void *arg) {
  int r0 = 0;
  atomic_store_explicit(&y, 1, memory_order_seq_cst);
  r0 = atomic_load_explicit(&x, memory_order_seq_cst);
  out_0_r0 = r0;
  return NULL;
}
void *thr1(void *arg) {
  atomic_store_explicit(&x, 2, memory_order_seq_cst);
  return NULL;
}
void *thr2(void *arg) {
  int r0 = 0;
  int r2 = 0;
  r0 = atomic_load_explicit(&x, memory_order_acquire);
  r2 = atomic_load_explicit(&y, memory_order_seq_cst);
  out_2_r0 = r0;
  out_2_r2 = r2;
  return NULL;
}
void *thr3(void *arg) {
  int r0 = 0;
  r0 = atomic_fetch_add_explicit(&x, 1, memory_order_seq_cst);
  out_3_r0 = r0;
  return NULL;
}
int main() {
  pthread_t t[4];
  pthread_create(&t[0], NULL, thr0, NULL);
  pthread_create(&t[1], NULL, thr1, NULL);
  pthread_create(&t[2], NULL, thr2, NULL);
  pthread_create(&t[3], NULL, thr3, NULL);
  pthread_join(t[0], NULL);
  pthread_join(t[1], NULL);
  pthread_join(t[2], NULL);
  pthread_join(t[3], NULL);
  int f_0_r0 = out_0_r0;
  int f_2_r0 = out_2_r0;
  int f_2_r2 = out_2_r2;
  int f_3_r0 = out_3_r0;
  int g_x = atomic_load_explicit(&x, memory_order_relaxed);
  int g_y = atomic_load_explicit(&y, memory_order_relaxed);
  return 0;
}

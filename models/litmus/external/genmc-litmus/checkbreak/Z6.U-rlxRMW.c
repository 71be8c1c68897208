#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>
#include <genmc.h>

atomic_int x;
atomic_int y;
int out_1_b;
int out_2_a;
void *thr0(void *arg) {
  atomic_store_explicit(&x, 1, memory_order_seq_cst);
  atomic_store_explicit(&y, 1, memory_order_release);
  return NULL;
}
void *thr1(void *arg) {
  int b = 0;
  b = atomic_fetch_add_explicit(&y, 1, memory_order_seq_cst);
  out_1_b = b;
  return NULL;
}
void *thr2(void *arg) {
  int a = 0;
  atomic_store_explicit(&y, 3, memory_order_seq_cst);
  a = atomic_load_explicit(&x, memory_order_seq_cst);
  out_2_a = a;
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
  int f_1_b = out_1_b;
  int f_2_a = out_2_a;
  int g_x = atomic_load_explicit(&x, memory_order_relaxed);
  int g_y = atomic_load_explicit(&y, memory_order_relaxed);
  return 0;
}

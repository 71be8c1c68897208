#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>
#include <genmc.h>

int d;
atomic_int y;
int out_1_k;
int out_1_a;
int out_1_b;
void *thr0(void *arg) {
  d = 1;
  atomic_store_explicit(&y, 1, memory_order_release);
  return NULL;
}
void *thr1(void *arg) {
  int k = 0;
  int a = 0;
  int b = 0;
  a = 77;
  k = atomic_compare_exchange_strong_explicit(&y, &a, 100, memory_order_relaxed, memory_order_acquire);
  if (a == 1) {
    b = d;
  }
  out_1_k = k;
  out_1_a = a;
  out_1_b = b;
  return NULL;
}
int main() {
  pthread_t t[2];
  pthread_create(&t[0], NULL, thr0, NULL);
  pthread_create(&t[1], NULL, thr1, NULL);
  pthread_join(t[0], NULL);
  pthread_join(t[1], NULL);
  int f_1_k = out_1_k;
  int f_1_a = out_1_a;
  int f_1_b = out_1_b;
  int g_d = d;
  int g_y = atomic_load_explicit(&y, memory_order_relaxed);
  return 0;
}

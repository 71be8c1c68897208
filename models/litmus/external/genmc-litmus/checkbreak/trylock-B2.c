#include <pthread.h>
#include <assert.h>
pthread_mutex_t m;
void *t0(void *x) { pthread_mutex_lock(&m); pthread_mutex_unlock(&m); return 0; }
void *t1(void *x) { if (pthread_mutex_trylock(&m) == 0) pthread_mutex_unlock(&m); else assert(0 && "trylock failed"); return 0; }
int main() { pthread_t a, b; pthread_create(&a, 0, t0, 0); pthread_create(&b, 0, t1, 0); pthread_join(a, 0); pthread_join(b, 0); return 0; }

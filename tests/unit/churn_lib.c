/* churn_lib.c: the small shared libraries test_nativewalk loads and unloads:
 * libflyprof_churn_a.so, and libflyprof_churn_b.so (CHURN_PAD: 64 KiB of code after
 * churn_fn). b is too large for the hole a leaves, so the kernel maps it just below, where
 * a's code would cover b's padding but not its churn_fn: a stale snapshot holding a at its
 * last address does not hide b's churn_fn. */
int churn_fn(int x);

int churn_fn(int x)
{
    return x * 3 + 1;
}

#ifdef CHURN_PAD
void churn_pad(void);

void churn_pad(void)
{
    __asm__ volatile(".skip 65536, 0x90");
}
#endif

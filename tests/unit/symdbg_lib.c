/* symdbg_lib: a shared library test_symbols loads after its build strips it and moves its
 * symbols into a separate debug file. SYMDBG_VARIANT names the copy, so that each copy's
 * function has its own name and its own build id. */
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define LOCAL_FN CAT(symdbg_local_, SYMDBG_VARIANT)

/* Static: in .symtab only, so after strip only the debug file names it. */
__attribute__((noinline)) static int LOCAL_FN(int x)
{
    return x * SYMDBG_FACTOR + 1;
}

/* Exported (in .dynsym): the address of the static function. */
void *symdbg_local_addr(void);
void *symdbg_local_addr(void)
{
    return (void *)LOCAL_FN;
}

int symdbg_call(int x);
int symdbg_call(int x)
{
    return LOCAL_FN(x);
}

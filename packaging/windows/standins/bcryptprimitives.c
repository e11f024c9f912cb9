/* A stand-in for Windows 10's bcryptprimitives.dll, which Wine 8 lacks: Rust's standard library
 * (tokenizers, tiktoken, pydantic-core) asks it for random bytes. Built into the Wine test
 * prefix only, never shipped; the bytes come from Wine's RtlGenRandom. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}

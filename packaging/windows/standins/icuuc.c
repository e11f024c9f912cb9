/* A stand-in for Windows 10's system ICU (icuuc.dll), which Wine 8 lacks and Qt >= 6.7 links.
 * Built into the Wine test prefix only, never shipped: no converter opens, so Qt uses its own
 * UTF-8 / UTF-16 / Latin-1 codecs, which are all Quire reads and writes. */
#include <stddef.h>
#include <stdint.h>

#define EXPORT __declspec(dllexport)
#define U_FILE_ACCESS_ERROR 4

EXPORT void *ucnv_open(const char *name, int *status) {
    (void)name;
    if (status) *status = U_FILE_ACCESS_ERROR;
    return NULL;
}
EXPORT int32_t ucnv_countAvailable(void) { return 0; }
EXPORT const char *ucnv_getAvailableName(int32_t n) { (void)n; return NULL; }
EXPORT const char *ucnv_getStandardName(const char *n, const char *s, int *status) {
    (void)n; (void)s;
    if (status) *status = U_FILE_ACCESS_ERROR;
    return NULL;
}
EXPORT void ucnv_close(void *c) { (void)c; }
EXPORT void ucnv_reset(void *c) { (void)c; }
/* Never reached without an open converter; present because Qt6Core imports them. */
EXPORT void UCNV_FROM_U_CALLBACK_SUBSTITUTE(void) {}
EXPORT void UCNV_TO_U_CALLBACK_SUBSTITUTE(void) {}
EXPORT int8_t ucnv_getMaxCharSize(void *c) { (void)c; return 1; }
EXPORT const char *ucnv_getName(void *c, int *status) { (void)c; (void)status; return "none"; }
EXPORT void ucnv_getToUCallBack(void) {}
EXPORT void ucnv_getFromUCallBack(void) {}
EXPORT void ucnv_setToUCallBack(void) {}
EXPORT void ucnv_setFromUCallBack(void) {}
EXPORT void ucnv_cbToUWriteUChars(void) {}
EXPORT void ucnv_cbFromUWriteUChars(void) {}
EXPORT void ucnv_toUnicode(void) {}
EXPORT void ucnv_fromUnicode(void) {}
EXPORT int32_t ucnv_toUCountPending(void *c, int *status) { (void)c; (void)status; return 0; }
EXPORT int32_t ucnv_fromUCountPending(void *c, int *status) { (void)c; (void)status; return 0; }

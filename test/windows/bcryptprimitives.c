/* Wine 8 has no bcryptprimitives.dll, which every Go >= 1.22 program loads at start for
 * ProcessPrng. This stand-in forwards to BCryptGenRandom (which Wine has). It is copied into
 * the test prefix's system32 by run.sh and never ships. */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	while (len > 0) {
		ULONG n = len > 0x7fffffff ? 0x7fffffff : (ULONG)len;
		if (BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}

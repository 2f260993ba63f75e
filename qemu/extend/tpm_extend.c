// tpm_extend: the guest-side benchmark. Extends PCR 16 N times through /dev/tpm0, timing each
// extend round trip (write command, read response) with CLOCK_MONOTONIC, then reads PCR 16 back
// so the host can check the whole hash chain. PCR 16 is the debug PCR of both PC Client specs:
// resettable from locality 0 in TPM 1.2 and TPM 2.0 alike.
//
//   tpm_extend [--tpm 2.0|1.2] COUNT [DEVICE]
//
// --tpm 2.0 (the default) sends TPM2_PCR_Reset, TPM2_PCR_Read and TPM2_PCR_Extend of the SHA-256
// bank; --tpm 1.2 sends TPM_PCR_Reset, TPM_PCRRead and TPM_Extend (ordinal 0x14), SHA-1.
//
// Built static (gcc -static) because the guest's initramfs has no C library.
//
// Output, one record per line, parsed by src/guest/guest_output.cpp:
//   ksweep-extend: begin n=<N>
//   ksweep-extend: reset rc=0x<rc>
//   ksweep-extend: pcr16-initial <hex digest>
//   ksweep-extend: extend i=<i> ns=<ns> rc=0x<rc>
//   ksweep-extend: pcr16-final <hex digest>
//   ksweep-extend: end ok=<count> failed=<count>
// Digest i (0-based) is extend_digest(i): its first four bytes are i big-endian, the others
// 0xa5 ^ their index, so the host rebuilds every digest from i alone.
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
    kPcrIndex = 16,
    kMaxDigestSize = 32,
    kMaxResponse = 4096,
};

static void put_be16(uint8_t* p, uint16_t v) {
    p[0] = v >> 8;
    p[1] = v;
}

static void put_be32(uint8_t* p, uint32_t v) {
    p[0] = v >> 24;
    p[1] = v >> 16;
    p[2] = v >> 8;
    p[3] = v;
}

static uint32_t get_be32(const uint8_t* p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static size_t put_header(uint8_t* p, uint16_t tag, uint32_t command_code) {
    put_be16(p, tag);
    put_be32(p + 2, 0); // size, patched by finish_command()
    put_be32(p + 6, command_code);
    return 10;
}

static void finish_command(uint8_t* command, size_t size) {
    put_be32(command + 2, (uint32_t)size);
}

static void extend_digest(uint32_t i, uint8_t* digest, int size) {
    put_be32(digest, i);
    for (int j = 4; j < size; ++j)
        digest[j] = (uint8_t)(0xa5 ^ j);
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// One command/response round trip. Returns the response length, or -1 (errno kept).
static ssize_t transact(int fd, const uint8_t* command, size_t size, uint8_t* response) {
    ssize_t n = write(fd, command, size);
    if (n != (ssize_t)size)
        return -1;
    return read(fd, response, kMaxResponse);
}

// The TPM response code, or a value with bit 31 set when the exchange itself failed.
static uint32_t response_code(ssize_t len, const uint8_t* response) {
    if (len < 10)
        return 0x80000000u | (len < 0 ? (uint32_t)errno : 0);
    return get_be32(response + 6);
}

// One timed round trip of `cmd`.
static uint32_t timed(int fd, const uint8_t* cmd, size_t n, int64_t* elapsed_ns) {
    uint8_t rsp[kMaxResponse];
    int64_t start = now_ns();
    ssize_t len = transact(fd, cmd, n, rsp);
    *elapsed_ns = now_ns() - start;
    return response_code(len, rsp);
}

// --- TPM 2.0 -----------------------------------------------------------------------------

// The password authorisation area every PCR command here carries: TPM_RS_PW, empty nonce,
// continueSession, empty password (9 bytes, preceded by its u32 size).
static size_t put_password_session(uint8_t* p) {
    put_be32(p, 9);
    put_be32(p + 4, 0x40000009); // TPM_RS_PW
    put_be16(p + 8, 0);          // nonce size
    p[10] = 0x01;                // continueSession
    put_be16(p + 11, 0);         // hmac (password) size
    return 13;
}

static uint32_t tpm2_pcr_reset(int fd) {
    uint8_t cmd[64], rsp[kMaxResponse];
    size_t n = put_header(cmd, 0x8002, 0x0000013d); // TPM_ST_SESSIONS, TPM2_CC_PCR_Reset
    put_be32(cmd + n, kPcrIndex);
    n += 4;
    n += put_password_session(cmd + n);
    finish_command(cmd, n);
    return response_code(transact(fd, cmd, n, rsp), rsp);
}

static uint32_t tpm2_pcr_read(int fd, uint8_t* value) {
    uint8_t cmd[64], rsp[kMaxResponse];
    size_t n = put_header(cmd, 0x8001, 0x0000017e); // TPM_ST_NO_SESSIONS, TPM2_CC_PCR_Read
    put_be32(cmd + n, 1);                           // one TPMS_PCR_SELECTION
    put_be16(cmd + n + 4, 0x000b);                  // TPM_ALG_SHA256
    cmd[n + 6] = 3;                                 // sizeofSelect
    cmd[n + 7] = 0;
    cmd[n + 8] = 0;
    cmd[n + 9] = 1 << (kPcrIndex - 16);
    n += 10;
    finish_command(cmd, n);
    ssize_t len = transact(fd, cmd, n, rsp);
    uint32_t rc = response_code(len, rsp);
    // header 10, pcrUpdateCounter 4, selection 10, digest count 4, digest size 2, digest 32.
    const size_t digest_at = 10 + 4 + 10 + 4 + 2;
    if (rc == 0 && (len < (ssize_t)(digest_at + 32) || get_be32(rsp + 24) != 1))
        return 0x80000000u | EPROTO;
    if (rc == 0)
        memcpy(value, rsp + digest_at, 32);
    return rc;
}

static uint32_t tpm2_pcr_extend(int fd, uint32_t i, int64_t* elapsed_ns) {
    uint8_t cmd[80];
    size_t n = put_header(cmd, 0x8002, 0x00000182); // TPM_ST_SESSIONS, TPM2_CC_PCR_Extend
    put_be32(cmd + n, kPcrIndex);
    n += 4;
    n += put_password_session(cmd + n);
    put_be32(cmd + n, 1);          // one TPMT_HA
    put_be16(cmd + n + 4, 0x000b); // TPM_ALG_SHA256
    n += 6;
    extend_digest(i, cmd + n, 32);
    n += 32;
    finish_command(cmd, n); // 65 bytes, as REFERENCE §5
    return timed(fd, cmd, n, elapsed_ns);
}

// --- TPM 1.2 (TPM Main Part 3, commands 16.1, 16.2, 16.4) ---------------------------------

enum { kTagRquCommand = 0x00c1 };

static uint32_t tpm12_pcr_reset(int fd) {
    uint8_t cmd[32], rsp[kMaxResponse];
    size_t n = put_header(cmd, kTagRquCommand, 0x000000c8); // TPM_ORD_PCR_Reset
    put_be16(cmd + n, 3);                                   // TPM_PCR_SELECTION.sizeOfSelect
    cmd[n + 2] = 0;
    cmd[n + 3] = 0;
    cmd[n + 4] = 1 << (kPcrIndex - 16);
    n += 5;
    finish_command(cmd, n);
    return response_code(transact(fd, cmd, n, rsp), rsp);
}

static uint32_t tpm12_pcr_read(int fd, uint8_t* value) {
    uint8_t cmd[32], rsp[kMaxResponse];
    size_t n = put_header(cmd, kTagRquCommand, 0x00000015); // TPM_ORD_PCRRead
    put_be32(cmd + n, kPcrIndex);
    n += 4;
    finish_command(cmd, n);
    ssize_t len = transact(fd, cmd, n, rsp);
    uint32_t rc = response_code(len, rsp);
    if (rc == 0 && len < 10 + 20)
        return 0x80000000u | EPROTO;
    if (rc == 0)
        memcpy(value, rsp + 10, 20);
    return rc;
}

static uint32_t tpm12_extend(int fd, uint32_t i, int64_t* elapsed_ns) {
    uint8_t cmd[40];
    size_t n = put_header(cmd, kTagRquCommand, 0x00000014); // TPM_ORD_Extend
    put_be32(cmd + n, kPcrIndex);
    n += 4;
    extend_digest(i, cmd + n, 20);
    n += 20;
    finish_command(cmd, n); // 34 bytes
    return timed(fd, cmd, n, elapsed_ns);
}

// -----------------------------------------------------------------------------------------

struct tpm_family {
    const char* name;
    int digest_size;
    uint32_t (*pcr_reset)(int fd);
    uint32_t (*pcr_read)(int fd, uint8_t* value);
    uint32_t (*extend)(int fd, uint32_t i, int64_t* elapsed_ns);
};

static const struct tpm_family kFamilies[] = {
    {"2.0", 32, tpm2_pcr_reset, tpm2_pcr_read, tpm2_pcr_extend},
    {"1.2", 20, tpm12_pcr_reset, tpm12_pcr_read, tpm12_extend},
};

static void print_pcr(const char* label, const uint8_t* value, int size) {
    printf("ksweep-extend: %s ", label);
    for (int j = 0; j < size; ++j)
        printf("%02x", value[j]);
    printf("\n");
}

static int usage(const char* program) {
    fprintf(stderr, "usage: %s [--tpm 2.0|1.2] COUNT [DEVICE]\n", program);
    return 2;
}

int main(int argc, char** argv) {
    // Line-buffered so a guest that dies half way still shows every finished extend.
    setvbuf(stdout, NULL, _IOLBF, 0);
    const struct tpm_family* tpm = &kFamilies[0];
    int arg = 1;
    if (arg + 1 < argc && strcmp(argv[arg], "--tpm") == 0) {
        tpm = NULL;
        for (size_t f = 0; f < sizeof kFamilies / sizeof kFamilies[0]; ++f)
            if (strcmp(argv[arg + 1], kFamilies[f].name) == 0)
                tpm = &kFamilies[f];
        if (!tpm) {
            fprintf(stderr, "tpm_extend: unknown TPM family '%s'\n", argv[arg + 1]);
            return 2;
        }
        arg += 2;
    }
    if (argc - arg < 1 || argc - arg > 2)
        return usage(argv[0]);
    char* end;
    unsigned long count = strtoul(argv[arg], &end, 10);
    if (*end || count == 0 || count > 1000000) {
        fprintf(stderr, "tpm_extend: bad count '%s'\n", argv[arg]);
        return 2;
    }
    const char* device = argc - arg == 2 ? argv[arg + 1] : "/dev/tpm0";
    int fd = open(device, O_RDWR);
    if (fd < 0) {
        printf("ksweep-extend: error open %s: %s\n", device, strerror(errno));
        return 1;
    }
    printf("ksweep-extend: begin n=%lu\n", count);

    printf("ksweep-extend: reset rc=0x%x\n", tpm->pcr_reset(fd));
    uint8_t pcr[kMaxDigestSize];
    uint32_t rc = tpm->pcr_read(fd, pcr);
    if (rc) {
        printf("ksweep-extend: error pcr-read rc=0x%x\n", rc);
        return 1;
    }
    print_pcr("pcr16-initial", pcr, tpm->digest_size);

    unsigned long ok = 0, failed = 0;
    for (unsigned long i = 0; i < count; ++i) {
        int64_t ns;
        rc = tpm->extend(fd, (uint32_t)i, &ns);
        printf("ksweep-extend: extend i=%lu ns=%lld rc=0x%x\n", i, (long long)ns, rc);
        rc ? ++failed : ++ok;
    }

    rc = tpm->pcr_read(fd, pcr);
    if (rc) {
        printf("ksweep-extend: error pcr-read rc=0x%x\n", rc);
        return 1;
    }
    print_pcr("pcr16-final", pcr, tpm->digest_size);
    printf("ksweep-extend: end ok=%lu failed=%lu\n", ok, failed);
    close(fd);
    return failed ? 1 : 0;
}

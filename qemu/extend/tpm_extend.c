// tpm_extend: the guest-side benchmark. Extends PCR 16 N times through /dev/tpm0, timing each
// TPM2_PCR_Extend round trip (write command, read response) with CLOCK_MONOTONIC, then reads
// PCR 16 back so the host can check the whole hash chain.
//
// Built static (gcc -static) because the guest's initramfs has no C library.
//
// Output, one record per line, parsed by src/guest/guest_output.cpp:
//   ksweep-extend: begin n=<N>
//   ksweep-extend: reset rc=0x<rc>
//   ksweep-extend: pcr16-initial <64 hex>
//   ksweep-extend: extend i=<i> ns=<ns> rc=0x<rc>
//   ksweep-extend: pcr16-final <64 hex>
//   ksweep-extend: end ok=<count> failed=<count>
// Digest i (0-based) is kExtendDigest(i): its first four bytes are i big-endian, the other 28
// are 0xa5 ^ their index, so the host rebuilds every digest from i alone.
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
    kDigestSize = 32,
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

static size_t put_header(uint8_t* p, uint16_t tag, uint32_t command_code) {
    put_be16(p, tag);
    put_be32(p + 2, 0); // size, patched by finish_command()
    put_be32(p + 6, command_code);
    return 10;
}

static void finish_command(uint8_t* command, size_t size) {
    put_be32(command + 2, (uint32_t)size);
}

static void extend_digest(uint32_t i, uint8_t digest[kDigestSize]) {
    put_be32(digest, i);
    for (int j = 4; j < kDigestSize; ++j)
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

static uint32_t pcr_reset(int fd) {
    uint8_t cmd[64], rsp[kMaxResponse];
    size_t n = put_header(cmd, 0x8002, 0x0000013d); // TPM_ST_SESSIONS, TPM2_CC_PCR_Reset
    put_be32(cmd + n, kPcrIndex);
    n += 4;
    n += put_password_session(cmd + n);
    finish_command(cmd, n);
    return response_code(transact(fd, cmd, n, rsp), rsp);
}

static uint32_t pcr_read(int fd, uint8_t value[kDigestSize]) {
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
    if (rc == 0 && (len < (ssize_t)(digest_at + kDigestSize) || get_be32(rsp + 24) != 1))
        return 0x80000000u | EPROTO;
    if (rc == 0)
        memcpy(value, rsp + digest_at, kDigestSize);
    return rc;
}

static uint32_t pcr_extend(int fd, uint32_t i, int64_t* elapsed_ns) {
    uint8_t cmd[80], rsp[kMaxResponse];
    size_t n = put_header(cmd, 0x8002, 0x00000182); // TPM_ST_SESSIONS, TPM2_CC_PCR_Extend
    put_be32(cmd + n, kPcrIndex);
    n += 4;
    n += put_password_session(cmd + n);
    put_be32(cmd + n, 1);          // one TPMT_HA
    put_be16(cmd + n + 4, 0x000b); // TPM_ALG_SHA256
    n += 6;
    extend_digest(i, cmd + n);
    n += kDigestSize;
    finish_command(cmd, n); // 65 bytes, as REFERENCE §5

    int64_t start = now_ns();
    ssize_t len = transact(fd, cmd, n, rsp);
    *elapsed_ns = now_ns() - start;
    return response_code(len, rsp);
}

static void print_pcr(const char* label, const uint8_t value[kDigestSize]) {
    printf("ksweep-extend: %s ", label);
    for (int j = 0; j < kDigestSize; ++j)
        printf("%02x", value[j]);
    printf("\n");
}

int main(int argc, char** argv) {
    // Line-buffered so a guest that dies half way still shows every finished extend.
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s COUNT [DEVICE]\n", argv[0]);
        return 2;
    }
    char* end;
    unsigned long count = strtoul(argv[1], &end, 10);
    if (*end || count == 0 || count > 1000000) {
        fprintf(stderr, "tpm_extend: bad count '%s'\n", argv[1]);
        return 2;
    }
    const char* device = argc == 3 ? argv[2] : "/dev/tpm0";
    int fd = open(device, O_RDWR);
    if (fd < 0) {
        printf("ksweep-extend: error open %s: %s\n", device, strerror(errno));
        return 1;
    }
    printf("ksweep-extend: begin n=%lu\n", count);

    printf("ksweep-extend: reset rc=0x%x\n", pcr_reset(fd));
    uint8_t pcr[kDigestSize];
    uint32_t rc = pcr_read(fd, pcr);
    if (rc) {
        printf("ksweep-extend: error pcr-read rc=0x%x\n", rc);
        return 1;
    }
    print_pcr("pcr16-initial", pcr);

    unsigned long ok = 0, failed = 0;
    for (unsigned long i = 0; i < count; ++i) {
        int64_t ns;
        rc = pcr_extend(fd, (uint32_t)i, &ns);
        printf("ksweep-extend: extend i=%lu ns=%lld rc=0x%x\n", i, (long long)ns, rc);
        rc ? ++failed : ++ok;
    }

    rc = pcr_read(fd, pcr);
    if (rc) {
        printf("ksweep-extend: error pcr-read rc=0x%x\n", rc);
        return 1;
    }
    print_pcr("pcr16-final", pcr);
    printf("ksweep-extend: end ok=%lu failed=%lu\n", ok, failed);
    close(fd);
    return failed ? 1 : 0;
}

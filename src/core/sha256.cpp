#include "core/sha256.h"

#include <algorithm>
#include <openssl/evp.h>
#include <stdexcept>

namespace ksweep {

struct Digest::Context {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
};

Digest::Digest(const std::string& name) : context_(new Context) {
    const EVP_MD* md = EVP_get_digestbyname(name.c_str());
    if (!md) {
        EVP_MD_CTX_free(context_->md);
        delete context_;
        throw std::invalid_argument("OpenSSL has no digest '" + name + "'");
    }
    if (!context_->md || EVP_DigestInit_ex(context_->md, md, nullptr) != 1) {
        EVP_MD_CTX_free(context_->md);
        delete context_;
        throw std::runtime_error("OpenSSL: cannot initialise " + name);
    }
}

Digest::~Digest() {
    EVP_MD_CTX_free(context_->md);
    delete context_;
}

void Digest::update(std::string_view bytes) {
    EVP_DigestUpdate(context_->md, bytes.data(), bytes.size());
}

Bytes Digest::finish() {
    Bytes out(static_cast<size_t>(EVP_MD_CTX_get_size(context_->md)));
    unsigned int size = 0;
    EVP_DigestFinal_ex(context_->md, out.data(), &size);
    return out;
}

void Sha256::update(const Sha256Digest& digest) {
    Digest::update(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

Sha256Digest Sha256::finish() {
    Bytes bytes = Digest::finish();
    Sha256Digest out{};
    std::copy(bytes.begin(), bytes.end(), out.begin());
    return out;
}

Sha256Digest sha256(std::string_view bytes) {
    Sha256 hash;
    hash.update(bytes);
    return hash.finish();
}

Bytes digest_bytes(const std::string& name, std::span<const std::uint8_t> bytes) {
    const EVP_MD* md = EVP_get_digestbyname(name.c_str());
    if (!md)
        throw std::invalid_argument("OpenSSL has no digest '" + name + "'");
    Bytes out(static_cast<size_t>(EVP_MD_get_size(md)));
    unsigned int size = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), out.data(), &size, md, nullptr) != 1)
        throw std::runtime_error("OpenSSL: " + name + " failed");
    return out;
}

std::string to_hex(std::span<const std::uint8_t> bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(bytes.size() * 2);
    for (std::uint8_t byte : bytes) {
        hex += kDigits[byte >> 4];
        hex += kDigits[byte & 0xf];
    }
    return hex;
}

std::optional<Bytes> bytes_from_hex(std::string_view hex) {
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
            return c - 'A' + 10;
        return -1;
    };
    if (hex.size() % 2)
        return std::nullopt;
    Bytes bytes(hex.size() / 2);
    for (size_t i = 0; i < bytes.size(); ++i) {
        int high = nibble(hex[2 * i]), low = nibble(hex[2 * i + 1]);
        if (high < 0 || low < 0)
            return std::nullopt;
        bytes[i] = static_cast<std::uint8_t>(high << 4 | low);
    }
    return bytes;
}

} // namespace ksweep

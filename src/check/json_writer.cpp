#include "check/json_writer.h"

#include <cmath>
#include <cstdio>

namespace ksweep::check {

std::string JsonWriter::escape(std::string_view text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\r':
            out += "\\r";
            break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    return out + "\"";
}

void JsonWriter::newline() {
    out_ += '\n';
    out_.append(2 * has_element_.size(), ' ');
}

void JsonWriter::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (has_element_.empty())
        return;
    if (has_element_.back())
        out_ += ',';
    has_element_.back() = true;
    newline();
}

JsonWriter& JsonWriter::begin_object() {
    before_value();
    out_ += '{';
    has_element_.push_back(false);
    return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
    bool had = has_element_.back();
    has_element_.pop_back();
    if (had)
        newline();
    out_ += bracket;
    return *this;
}

JsonWriter& JsonWriter::end_object() {
    return close('}');
}

JsonWriter& JsonWriter::begin_array() {
    before_value();
    out_ += '[';
    has_element_.push_back(false);
    return *this;
}

JsonWriter& JsonWriter::end_array() {
    return close(']');
}

JsonWriter& JsonWriter::key(std::string_view name) {
    before_value();
    out_ += escape(name) + ": ";
    after_key_ = true;
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
    before_value();
    out_ += escape(text);
    return *this;
}

JsonWriter& JsonWriter::value(long long number) {
    before_value();
    out_ += std::to_string(number);
    return *this;
}

JsonWriter& JsonWriter::value(double number) {
    before_value();
    if (!std::isfinite(number)) {
        out_ += "null";
        return *this;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", number);
    out_ += buf;
    return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
    before_value();
    out_ += flag ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::null() {
    before_value();
    out_ += "null";
    return *this;
}

} // namespace ksweep::check

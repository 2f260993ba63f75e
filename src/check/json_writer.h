// A small streaming JSON writer with two-space indentation: enough for check's JSON and SARIF
// reports without a JSON library dependency.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ksweep::check {

class JsonWriter {
  public:
    JsonWriter& begin_object();
    JsonWriter& end_object();
    JsonWriter& begin_array();
    JsonWriter& end_array();
    JsonWriter& key(std::string_view name);
    JsonWriter& value(std::string_view text);
    JsonWriter& value(const char* text) { return value(std::string_view(text)); }
    JsonWriter& value(long long number);
    JsonWriter& value(unsigned number) { return value(static_cast<long long>(number)); }
    JsonWriter& value(int number) { return value(static_cast<long long>(number)); }
    JsonWriter& value(double number);
    JsonWriter& value(bool flag);
    JsonWriter& null();

    // key(name).value(v) in one call.
    template <typename T> JsonWriter& field(std::string_view name, const T& v) {
        return key(name).value(v);
    }

    // The document, ending in a newline.
    std::string str() const { return out_ + "\n"; }

    static std::string escape(std::string_view text);

  private:
    void before_value();
    void newline();
    JsonWriter& close(char bracket);

    std::string out_;
    // Per open container: whether it has an element yet.
    std::vector<bool> has_element_;
    bool after_key_ = false;
};

} // namespace ksweep::check

#include "kbuild/makefile_lines.h"

namespace ksweep::kbuild {

std::vector<std::string> logical_lines(std::string_view text, EscapedHash escaped) {
    std::vector<std::string> lines;
    std::string line;
    size_t i = 0;
    while (i <= text.size()) {
        size_t end = text.find('\n', i);
        if (end == std::string::npos)
            end = text.size();
        std::string_view physical(text.data() + i, end - i);
        if (!physical.empty() && physical.back() == '\r')
            physical.remove_suffix(1);
        size_t backslashes = 0;
        while (backslashes < physical.size() && physical[physical.size() - 1 - backslashes] == '\\')
            ++backslashes;
        bool continued = backslashes % 2 == 1 && end < text.size();
        if (!line.empty()) { // a continuation: leading whitespace folds into the one space
            size_t b = physical.find_first_not_of(" \t");
            physical.remove_prefix(b == std::string_view::npos ? physical.size() : b);
        }
        if (continued) {
            physical.remove_suffix(1);
            std::string part = std::string(physical);
            while (!part.empty() && (part.back() == ' ' || part.back() == '\t'))
                part.pop_back();
            line += part;
            line += ' ';
        } else {
            line += physical;
            // Comments: from the first '#' not escaped by a backslash and not inside a
            // variable reference or function call (make takes those literally).
            std::string out;
            int depth = 0;
            for (size_t k = 0; k < line.size(); ++k) {
                char c = line[k];
                if (c == '\\' && k + 1 < line.size() && line[k + 1] == '#') {
                    out += escaped == EscapedHash::keep ? "\\#" : "#";
                    ++k;
                    continue;
                }
                if (c == '#' && depth == 0)
                    break;
                if (c == '$' && k + 1 < line.size() && (line[k + 1] == '(' || line[k + 1] == '{')) {
                    ++depth;
                    out += c;
                    c = line[++k];
                } else if ((c == '(' || c == '{') && depth > 0) {
                    ++depth;
                } else if ((c == ')' || c == '}') && depth > 0) {
                    --depth;
                }
                out += c;
            }
            lines.push_back(std::move(out));
            line.clear();
        }
        i = end + 1;
    }
    return lines;
}

} // namespace ksweep::kbuild

// The latency picture: both variants' extend times as overlaid histograms on one log time axis
// (a 10x difference must be as visible as it is), each bar the share of that variant's extends
// so unequal counts compare, medians as dashed lines with their values written beside them.
#include "validate/report_render.h"
#include "validate/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ksweep::validate {

namespace {

constexpr double kWidth = 860, kHeight = 490;
constexpr double kLeft = 80, kRight = 30, kTop = 100, kBottom = 70;
constexpr size_t kBins = 48;

struct VariantStyle {
    const char* name;
    const char* colour;
};
constexpr VariantStyle kBaseline{"baseline", "#d62728"};
constexpr VariantStyle kPatched{"patched", "#1f77b4"};

std::string fixed(double v, int decimals = 1) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string escape_xml(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '&')
            out += "&amp;";
        else if (c == '"')
            out += "&quot;";
        else
            out += c;
    }
    return out;
}

class LogAxis {
  public:
    LogAxis(double lo, double hi, double x0, double x1)
        : log_lo_(std::log(lo)), log_hi_(std::log(hi)), x0_(x0), x1_(x1) {}
    double x(double value) const {
        return x0_ + (std::log(value) - log_lo_) / (log_hi_ - log_lo_) * (x1_ - x0_);
    }

  private:
    double log_lo_, log_hi_, x0_, x1_;
};

// Tick values are round numbers: "10 ms", "2 ms", "500 us".
std::string tick_label(double us) {
    char buf[32];
    if (us < 1000)
        std::snprintf(buf, sizeof buf, "%g us", us);
    else if (us < 1e6)
        std::snprintf(buf, sizeof buf, "%g ms", us / 1000);
    else
        std::snprintf(buf, sizeof buf, "%g s", us / 1e6);
    return buf;
}

// 1-2-5 ticks, or every integer multiple when the range is too narrow for three of those.
std::vector<double> ticks_for(double lo, double hi) {
    std::vector<double> ticks = log_ticks(lo, hi);
    if (ticks.size() >= 3)
        return ticks;
    ticks.clear();
    for (double decade = std::pow(10.0, std::floor(std::log10(lo))); decade <= hi; decade *= 10)
        for (int m = 1; m <= 9; ++m)
            if (m * decade >= lo && m * decade <= hi)
                ticks.push_back(m * decade);
    return ticks;
}

} // namespace

std::string render_latency_svg(const DeviceRun& run, const std::string& title) {
    std::vector<double> baseline, patched;
    for (const auto& boot : run.boots) {
        auto times = extend_times_us(boot.samples);
        auto& into = boot.variant == kBaseline.name ? baseline : patched;
        into.insert(into.end(), times.begin(), times.end());
    }

    std::ostringstream svg;
    svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\""
        << kHeight << "\" viewBox=\"0 0 " << kWidth << " " << kHeight
        << "\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"13\">\n"
        << "<rect x=\"0\" y=\"0\" width=\"" << kWidth << "\" height=\"" << kHeight
        << "\" fill=\"white\"/>\n"
        << "<text class=\"title\" x=\"" << kWidth / 2 << "\" y=\"26\" text-anchor=\"middle\" "
        << "font-size=\"16\" font-weight=\"bold\">" << escape_xml(title) << "</text>\n";

    std::vector<double> all = baseline;
    all.insert(all.end(), patched.begin(), patched.end());
    if (all.empty()) {
        svg << "<text x=\"" << kWidth / 2 << "\" y=\"" << kHeight / 2
            << "\" text-anchor=\"middle\">no successful extends to plot</text>\n</svg>\n";
        return svg.str();
    }

    auto [min_it, max_it] = std::minmax_element(all.begin(), all.end());
    double lo = std::max(*min_it, 1.0) / 1.25, hi = std::max(*max_it, *min_it * 2) * 1.25;
    double plot_x0 = kLeft, plot_x1 = kWidth - kRight;
    double plot_y0 = kTop, plot_y1 = kHeight - kBottom;
    LogAxis axis(lo, hi, plot_x0, plot_x1);

    Histogram hb = log_histogram(baseline, lo, hi, kBins);
    Histogram hp = log_histogram(patched, lo, hi, kBins);
    auto share = [](size_t count, size_t total) {
        return total ? 100.0 * static_cast<double>(count) / static_cast<double>(total) : 0.0;
    };
    double max_share = 1;
    for (size_t i = 0; i < kBins; ++i)
        max_share = std::max(
            {max_share, share(hb.counts[i], baseline.size()), share(hp.counts[i], patched.size())});
    double y_top = std::ceil(max_share / 10) * 10;
    auto y = [&](double percent) { return plot_y1 - percent / y_top * (plot_y1 - plot_y0); };

    // Grid and y axis: share of the variant's extends, in percent.
    for (double p = 0; p <= y_top + 1e-9; p += y_top / 5) {
        svg << "<line class=\"grid\" x1=\"" << plot_x0 << "\" y1=\"" << fixed(y(p)) << "\" x2=\""
            << plot_x1 << "\" y2=\"" << fixed(y(p)) << "\" stroke=\"#dddddd\"/>\n"
            << "<text class=\"ytick\" x=\"" << plot_x0 - 6 << "\" y=\"" << fixed(y(p) + 4)
            << "\" text-anchor=\"end\">" << fixed(p, 0) << "</text>\n";
    }

    // Bars: both variants on the same bins, translucent so overlaps stay visible.
    auto bars = [&](const Histogram& h, size_t total, const VariantStyle& style) {
        svg << "<g class=\"bars-" << style.name << "\" fill=\"" << style.colour
            << "\" fill-opacity=\"0.55\" stroke=\"" << style.colour << "\">\n";
        for (size_t i = 0; i < kBins; ++i) {
            if (!h.counts[i])
                continue;
            double x0 = axis.x(h.edges[i]), x1 = axis.x(h.edges[i + 1]);
            double top = y(share(h.counts[i], total));
            svg << "  <rect x=\"" << fixed(x0) << "\" y=\"" << fixed(top) << "\" width=\""
                << fixed(x1 - x0) << "\" height=\"" << fixed(plot_y1 - top) << "\"><title>"
                << style.name << ": " << h.counts[i] << " extends between "
                << format_duration_us(h.edges[i]) << " and " << format_duration_us(h.edges[i + 1])
                << "</title></rect>\n";
        }
        svg << "</g>\n";
    };
    bars(hb, baseline.size(), kBaseline);
    bars(hp, patched.size(), kPatched);

    // Medians, labelled on two rows so close medians do not overwrite each other.
    auto median_line = [&](const VariantSummary& v, const VariantStyle& style, int row) {
        if (!v.summary.count)
            return;
        double x = axis.x(v.summary.median_us);
        bool right_half = x > (plot_x0 + plot_x1) / 2;
        svg << "<line class=\"median-" << style.name << "\" x1=\"" << fixed(x) << "\" y1=\""
            << plot_y0 - 4 << "\" x2=\"" << fixed(x) << "\" y2=\"" << plot_y1 << "\" stroke=\""
            << style.colour << "\" stroke-width=\"2\" stroke-dasharray=\"6,4\"/>\n"
            << "<text class=\"median-label\" x=\"" << fixed(x + (right_half ? -6 : 6)) << "\" y=\""
            << plot_y0 + 14 + 18 * row << "\" text-anchor=\"" << (right_half ? "end" : "start")
            << "\" fill=\"" << style.colour << "\" font-weight=\"bold\">" << style.name
            << " median " << format_duration_us(v.summary.median_us) << "</text>\n";
    };
    median_line(run.baseline, kBaseline, 0);
    median_line(run.patched, kPatched, 1);

    // Axes, x ticks in time units, labels.
    svg << "<line class=\"axis\" x1=\"" << plot_x0 << "\" y1=\"" << plot_y1 << "\" x2=\"" << plot_x1
        << "\" y2=\"" << plot_y1 << "\" stroke=\"black\"/>\n"
        << "<line class=\"axis\" x1=\"" << plot_x0 << "\" y1=\"" << plot_y0 << "\" x2=\"" << plot_x0
        << "\" y2=\"" << plot_y1 << "\" stroke=\"black\"/>\n";
    for (double t : ticks_for(lo, hi)) {
        double x = axis.x(t);
        svg << "<line x1=\"" << fixed(x) << "\" y1=\"" << plot_y1 << "\" x2=\"" << fixed(x)
            << "\" y2=\"" << plot_y1 + 5 << "\" stroke=\"black\"/>\n"
            << "<text class=\"xtick\" x=\"" << fixed(x) << "\" y=\"" << plot_y1 + 19
            << "\" text-anchor=\"middle\">" << tick_label(t) << "</text>\n";
    }
    svg << "<text class=\"xlabel\" x=\"" << (plot_x0 + plot_x1) / 2 << "\" y=\"" << kHeight - 22
        << "\" text-anchor=\"middle\">time of one " << run.command << " through "
        << "/dev/tpm0 (log scale)</text>\n"
        << "<text class=\"ylabel\" transform=\"translate(24," << (plot_y0 + plot_y1) / 2
        << ") rotate(-90)\" text-anchor=\"middle\">% of the variant's extends</text>\n";

    // The ratio under the title, then the legend with counts and boots.
    auto legend = [&](const VariantSummary& v, const VariantStyle& style, double x) {
        svg << "<rect x=\"" << x << "\" y=\"62\" width=\"14\" height=\"14\" fill=\"" << style.colour
            << "\" fill-opacity=\"0.55\" stroke=\"" << style.colour << "\"/>\n"
            << "<text class=\"legend\" x=\"" << x + 20 << "\" y=\"74\">" << style.name << " ("
            << v.summary.count << " extends, " << v.boots << " boots)</text>\n";
    };
    legend(run.baseline, kBaseline, plot_x0);
    legend(run.patched, kPatched, plot_x0 + 280);
    if (run.median_ratio > 0)
        svg << "<text class=\"ratio\" x=\"" << kWidth / 2 << "\" y=\"46\" text-anchor=\"middle\" "
            << "font-weight=\"bold\">patched median = " << fixed(run.median_ratio, 2)
            << " x baseline</text>\n";
    svg << "</svg>\n";
    return svg.str();
}

} // namespace ksweep::validate

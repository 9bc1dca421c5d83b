#include "introspect/cli/arguments.h"

#include <charconv>
#include <sstream>

namespace glassbox::introspect::cli {

bool ParsedArguments::has(std::string_view name) const { return options_.find(name) != options_.end(); }

std::string ParsedArguments::value(std::string_view name, std::string_view fallback) const {
  auto it = options_.find(name);
  return it == options_.end() || it->second.empty() ? std::string(fallback) : it->second.back();
}

std::vector<std::string> ParsedArguments::values(std::string_view name) const {
  auto it = options_.find(name);
  return it == options_.end() ? std::vector<std::string>{} : it->second;
}

int ParsedArguments::integer(std::string_view name, int fallback) const {
  if (!has(name)) return fallback;
  const std::string text = value(name);
  int out = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    throw UsageError("--" + std::string(name) + " expects an integer, got \"" + text + "\"");
  }
  return out;
}

std::string ParsedArguments::positional(std::string_view name) const {
  auto it = positionals_.find(name);
  return it == positionals_.end() ? std::string() : it->second;
}

ArgumentParser::ArgumentParser(std::string usage_name, std::string summary)
    : usage_name_(std::move(usage_name)), summary_(std::move(summary)) {}

ArgumentParser& ArgumentParser::positional(std::string name, std::string help, bool required) {
  positionals_.push_back({std::move(name), std::move(help), required});
  return *this;
}

ArgumentParser& ArgumentParser::flag(std::string name, std::string help, std::string short_name) {
  specs_.push_back({std::move(name), std::move(short_name), "", std::move(help), false, false});
  return *this;
}

ArgumentParser& ArgumentParser::option(std::string name, std::string value_name, std::string help,
                                       std::string short_name, bool repeatable) {
  specs_.push_back({std::move(name), std::move(short_name), std::move(value_name), std::move(help), true, repeatable});
  return *this;
}

ArgumentParser& ArgumentParser::epilog(std::string text) {
  epilog_ = std::move(text);
  return *this;
}

const ArgumentParser::Spec* ArgumentParser::find_long(std::string_view name) const {
  for (const auto& s : specs_)
    if (s.name == name) return &s;
  return nullptr;
}

const ArgumentParser::Spec* ArgumentParser::find_short(std::string_view name) const {
  for (const auto& s : specs_)
    if (!s.short_name.empty() && s.short_name == name) return &s;
  return nullptr;
}

ParsedArguments ArgumentParser::parse(const std::vector<std::string>& args) const {
  ParsedArguments parsed;
  std::vector<std::string> loose;
  bool only_positionals = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (only_positionals || arg.size() < 2 || arg[0] != '-') {
      loose.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positionals = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      parsed.help = true;
      return parsed;
    }
    const Spec* spec = nullptr;
    std::string inline_value;
    bool has_inline = false;
    if (arg.rfind("--", 0) == 0) {
      std::string name = arg.substr(2);
      if (auto eq = name.find('='); eq != std::string::npos) {
        inline_value = name.substr(eq + 1), has_inline = true;
        name.resize(eq);
      }
      spec = find_long(name);
    } else {
      spec = find_short(arg.substr(1, 1));
      if (spec && arg.size() > 2) inline_value = arg.substr(2), has_inline = true;  // -oFILE
    }
    if (!spec) throw UsageError("unknown option " + arg);
    auto& slot = parsed.options_[spec->name];
    if (!spec->takes_value) {
      if (has_inline) throw UsageError("--" + spec->name + " takes no value");
      slot.push_back("");
      continue;
    }
    if (!has_inline) {
      if (i + 1 >= args.size()) throw UsageError("--" + spec->name + " needs a value (" + spec->value_name + ")");
      inline_value = args[++i];
    }
    if (!spec->repeatable) slot.clear();
    slot.push_back(inline_value);
  }
  std::size_t p = 0;
  for (; p < positionals_.size() && p < loose.size(); ++p) parsed.positionals_[positionals_[p].name] = loose[p];
  if (p < loose.size()) throw UsageError("unexpected argument \"" + loose[p] + "\"");
  for (; p < positionals_.size(); ++p)
    if (positionals_[p].required) throw UsageError("missing " + positionals_[p].name);
  return parsed;
}

std::string ArgumentParser::usage() const {
  std::ostringstream out;
  out << "usage: " << usage_name_;
  for (const auto& p : positionals_) out << (p.required ? " " + p.name : " [" + p.name + "]");
  if (!specs_.empty()) out << " [options]";
  return out.str();
}

std::string ArgumentParser::help() const {
  std::ostringstream out;
  out << usage() << "\n\n" << summary_ << "\n";
  if (!positionals_.empty()) {
    out << "\narguments:\n";
    for (const auto& p : positionals_)
      out << "  " << p.name << std::string(p.name.size() < 24 ? 24 - p.name.size() : 1, ' ') << p.help << "\n";
  }
  out << "\noptions:\n";
  auto line = [&](std::string left, const std::string& help) {
    out << "  " << left;
    if (left.size() < 24) out << std::string(24 - left.size(), ' ');
    else out << "\n" << std::string(26, ' ');
    out << help << "\n";
  };
  line("-h, --help", "show this help");
  for (const auto& s : specs_) {
    std::string left = s.short_name.empty() ? "--" + s.name : "-" + s.short_name + ", --" + s.name;
    if (s.takes_value) left += " " + s.value_name;
    line(left, s.help + (s.repeatable ? " (repeatable)" : ""));
  }
  if (!epilog_.empty()) out << "\n" << epilog_ << "\n";
  return out.str();
}

}  // namespace glassbox::introspect::cli

#pragma once
// Warnings from operators (an out= tensor resized, say): not errors, but worth telling the user.
// By default they go to stderr; the Python module may install a handler that raises a Python
// UserWarning instead.
#include <string>

namespace glassbox {

using WarningHandler = void (*)(const std::string& message);

// Sends message to the current handler.
void warn(const std::string& message);
// Replaces the handler (nullptr restores the default, which prints "glassbox warning: ..." to stderr).
void set_warning_handler(WarningHandler handler);

}  // namespace glassbox

#pragma once

#include <QString>

class QWidget;

namespace forkscope::ui {

// Reset lab environment asks first, wherever it is offered (the Lab menu and toolbar, the
// deep-reorg banner): the box says exactly what will happen, and Cancel is the default.
// Returns true to go ahead.
bool confirmLabReset(QWidget* parent, const QString& environmentId);

// The box's object name, for the tests that answer it.
inline constexpr const char* kLabResetConfirmName = "labResetConfirm";

} // namespace forkscope::ui

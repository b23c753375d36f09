#pragma once

#include <QString>

class QWidget;

namespace forkscope::ui {

// Restart engine, Stop engine and Quit archive the managed lab's environment and discard
// its anvil chain: the data stays in the database, but the chain it came from is gone and
// cannot be indexed again. Asked before each, with "Don't ask again" (kept in QSettings).
// Returns true to go ahead. `verb` names the action ("Restart the engine").
bool confirmDiscardLab(QWidget* parent, const QString& verb);

// The QSettings key behind "Don't ask again".
QString discardLabConfirmKey();

} // namespace forkscope::ui

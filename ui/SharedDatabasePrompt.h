#pragma once

#include <QString>
#include <optional>

class QWidget;

namespace forkscope::ui {

// File > Open shared database...: asks for the postgresql:// URL of a shared index and
// checks it before the engine restarts on it (a wrong URL is said in the dialog, the
// current database stays open). nullopt when cancelled.
std::optional<QString> askSharedDatabaseUrl(QWidget* parent, const QString& current);

} // namespace forkscope::ui

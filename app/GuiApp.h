#pragma once

#include <QStringList>

namespace forkscope::app {

// The desktop app: QApplication, the main window, and the engine on its worker thread.
int runGui(int& argc, char** argv);

} // namespace forkscope::app

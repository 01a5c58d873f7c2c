#include <dbus/dbus.h>
// Not in Swift's Glibc module: the bus thread and the notification readers wake on eventfds.
#include <sys/eventfd.h>

/* info.h - versions of the plugin, the toolkit and the driver. */
#ifndef CUPLUG__PLUGIN_API_INFO_H
#define CUPLUG__PLUGIN_API_INFO_H

#include "cuplug/cuplug.h"

/* Fills every field of a full-size cuplug_info.  The toolkit is probed once
 * per process; the strings live until the plugin is unloaded. */
void cuplug__info_fill(cuplug_info *info, const char *version);

#endif

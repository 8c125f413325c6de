// Everything a program that uses graphrt includes: Session and SavedModel loading, Tensor and
// Status, configuration, placement reports and logs, the Keras loader, checkpoints, migration,
// GraphDef and .npy files, and the version.
#ifndef GRAPHRT_GRAPHRT_H_
#define GRAPHRT_GRAPHRT_H_

#include <graphrt/checkpoint.h>
#include <graphrt/config.h>
#include <graphrt/device_attributes.h>
#include <graphrt/export.h>
#include <graphrt/graph_io.h>
#include <graphrt/keras.h>
#include <graphrt/keras_graph.h>
#include <graphrt/migrate.h>
#include <graphrt/npy.h>
#include <graphrt/placement.h>
#include <graphrt/placement_log.h>
#include <graphrt/resource_handle.h>
#include <graphrt/saved_model.h>
#include <graphrt/session.h>
#include <graphrt/status.h>
#include <graphrt/str_cat.h>
#include <graphrt/tensor.h>
#include <graphrt/tensor_shape.h>
#include <graphrt/types.h>
#include <graphrt/version.h>

#endif  // GRAPHRT_GRAPHRT_H_

/* SPDX-License-Identifier: Apache-2.0
 *
 * A shared library that is not an mxc model (it exports no
 * mxc_model_descriptor), for the runtime's "not a model" error path.
 */
__attribute__((visibility("default"))) int not_a_model(void) { return 42; }

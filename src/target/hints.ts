/**
 * What a machine without a WebGPU adapter needs, apart from dawn.ts so that the published
 * declarations that re-export it (webgpu.ts) name no WebGPU type.
 */

/** What to install when there is no adapter (Debian's SwiftShader, from the chromium package). */
export const SOFTWARE_DRIVER_HINT =
  "install a Vulkan driver, e.g. SwiftShader from Debian's chromium package: `sudo apt-get install chromium libvulkan1` (scf then finds /usr/lib/chromium/vk_swiftshader_icd.json itself; or set VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json LD_LIBRARY_PATH=/usr/lib/chromium)";

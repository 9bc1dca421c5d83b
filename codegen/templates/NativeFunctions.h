${banner}
#pragma once
// Every kernel named in ops.yaml, in glassbox::native. A kernel's .cpp should include only
// glassbox/ops/native/<name>.h for the operators it implements.
${includes}
